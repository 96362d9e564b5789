#!/usr/bin/env bash
# Builds a real kube-apiserver from Debian's source package `kubernetes` (1.20.2, vendored), once,
# and caches the binary outside the repository. Recipe: ../shared/design/testing.md.
# Prints the path of the cached binary on its last line, and on stderr how long each phase of a
# cold build took (packages, source, build).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="${CPPS_TOOL_CACHE:-$HOME/.cache/cpps-tools}"
bin="$cache/kube-apiserver-1.20.2/kube-apiserver"
if [ -x "$bin" ]; then echo "$bin"; exit 0; fi
started=$SECONDS
bash "$here/install.sh" apt golang-go rsync etcd-server etcd-client \
  golang-github-modern-go-reflect2-dev
packages_s=$((SECONDS - started))
# Two checkouts of one machine build once: the second waits, then finds the binary.
mkdir -p "$cache"
exec 9>"$cache/kube-apiserver-1.20.2.lock"
flock -w 3600 9
if [ -x "$bin" ]; then echo "$bin"; exit 0; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial"
# A private deb-src list derived from the machine's own apt sources, so /etc/apt is left alone.
if [ -f /etc/apt/sources.list.d/debian.sources ]; then
  sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources > "$work/src.sources"
else
  sed -n 's/^deb /deb-src /p' /etc/apt/sources.list > "$work/src.list"
fi
mkdir -p "$work/apt-cache/archives/partial"
# Private lists and cache too: the system's apt locks are never taken here.
O="-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=$work -o Dir::State::Lists=$work/lists"
O="$O -o Dir::Cache=$work/apt-cache"
cd "$work"
apt-get $O update -qq >&2
apt-get $O source --download-only kubernetes >&2
tar xzf kubernetes_*.orig.tar.gz
source_s=$((SECONDS - started - packages_s))
src=$(ls -d "$work"/kubernetes-1.20.2)
# The vendored reflect2 1.0.1 crashes under Go >= 1.18 on the first custom resource.
rm -rf "$src/vendor/github.com/modern-go/reflect2"
cp -rL /usr/share/gocode/src/github.com/modern-go/reflect2 "$src/vendor/github.com/modern-go/reflect2"
rm -f "$src/vendor/github.com/modern-go/reflect2/go.mod"
mkdir -p "$src/.go/src/k8s.io"
ln -s ../../.. "$src/.go/src/k8s.io/kubernetes"
# `make WHAT=…` first builds the code generators and generates the openapi definitions that the
# release tarball lacks (pkg/generated/openapi), then compiles cmd/kube-apiserver alone. The Go
# build cache is kept, so a build that was interrupted resumes where it stopped.
(cd "$src" && env GOPATH="$src/.go" GOCACHE="$cache/go-build" CGO_ENABLED=0 GOPROXY=off \
  make WHAT=cmd/kube-apiserver >&2)
build_s=$((SECONDS - started - packages_s - source_s))
echo "kube-apiserver.sh: built in $((SECONDS - started)) s: packages ${packages_s} s," \
  "source ${source_s} s, build ${build_s} s" >&2
mkdir -p "$(dirname "$bin")"
cp "$src/_output/bin/kube-apiserver" "$bin.tmp"
mv "$bin.tmp" "$bin"
echo "$bin"
