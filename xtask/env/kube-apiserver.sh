#!/usr/bin/env bash
# Builds a real kube-apiserver from Debian's source package `kubernetes` (1.20.2, vendored), once,
# and caches the binary outside the repository. Recipe: ../shared/design/testing.md.
# Prints the path of the cached binary on its last line.
set -euo pipefail
cache="${CPPS_TOOL_CACHE:-$HOME/.cache/cpps-tools}"
bin="$cache/kube-apiserver-1.20.2/kube-apiserver"
if [ -x "$bin" ]; then echo "$bin"; exit 0; fi
export DEBIAN_FRONTEND=noninteractive
need=()
for p in golang-go rsync etcd-server etcd-client golang-github-modern-go-reflect2-dev; do
  dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq >&2
  apt-get install -y -qq "${need[@]}" >&2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial"
# A private deb-src list derived from the machine's own apt sources, so /etc/apt is left alone.
if [ -f /etc/apt/sources.list.d/debian.sources ]; then
  sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources > "$work/src.sources"
else
  sed -n 's/^deb /deb-src /p' /etc/apt/sources.list > "$work/src.list"
fi
O="-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=$work -o Dir::State::Lists=$work/lists"
cd "$work"
apt-get $O update -qq >&2
apt-get $O source --download-only kubernetes >&2
tar xzf kubernetes_*.orig.tar.gz
src=$(ls -d "$work"/kubernetes-1.20.2)
# The vendored reflect2 1.0.1 crashes under Go >= 1.18 on the first custom resource.
rm -rf "$src/vendor/github.com/modern-go/reflect2"
cp -rL /usr/share/gocode/src/github.com/modern-go/reflect2 "$src/vendor/github.com/modern-go/reflect2"
rm -f "$src/vendor/github.com/modern-go/reflect2/go.mod"
mkdir -p "$src/.go/src/k8s.io"
ln -s ../../.. "$src/.go/src/k8s.io/kubernetes"
(cd "$src" && env GOPATH="$src/.go" GOCACHE="$work/gocache" CGO_ENABLED=0 GOPROXY=off make WHAT=cmd/kube-apiserver >&2)
mkdir -p "$(dirname "$bin")"
cp "$src/_output/bin/kube-apiserver" "$bin.tmp"
mv "$bin.tmp" "$bin"
echo "$bin"
