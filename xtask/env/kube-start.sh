#!/usr/bin/env bash
# Starts a real etcd + kube-apiserver (1.20.2, built by kube-apiserver.sh) on free 127.0.0.1 ports
# for the cpps-gpu tests. Recipe: ../shared/design/testing.md ("A real Kubernetes API server").
#
# Usage: kube-start.sh STATE_DIR
#   Data, logs, certificates and the token file go under STATE_DIR. Writes STATE_DIR/kubeconfig
#   (server https://127.0.0.1:PORT, the apiserver's CA from its --cert-dir, a random admin token in
#   group system:masters) and STATE_DIR/pids, waits for /readyz, and prints
#   `CPPS_TEST_KUBECONFIG=STATE_DIR/kubeconfig` as its last line. Stop with kube-stop.sh STATE_DIR.
#
# An API server only (no scheduler, controllers or kubelet): tests write `status` themselves.
# The ServiceAccount admission plugin is off, since no controller creates `default` accounts.
set -euo pipefail
state="${1:?usage: kube-start.sh STATE_DIR}"
here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$state"
state="$(cd "$state" && pwd)"
apiserver="$(bash "$here/kube-apiserver.sh" | tail -n 1)"
etcd_bin="$(command -v etcd || true)"
if [ -z "$etcd_bin" ]; then
  echo "kube-start: etcd not found (apt-get install etcd-server)" >&2
  exit 1
fi
if [ -s "$state/pids" ]; then
  bash "$here/kube-stop.sh" "$state" >/dev/null 2>&1 || true
fi

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}
etcd_client=$(free_port)
etcd_peer=$(free_port)
api_port=$(free_port)
while [ "$etcd_peer" = "$etcd_client" ]; do etcd_peer=$(free_port); done
while [ "$api_port" = "$etcd_client" ] || [ "$api_port" = "$etcd_peer" ]; do api_port=$(free_port); done

rm -rf "$state/etcd" "$state/certs"
mkdir -p "$state/etcd" "$state/certs"
chmod 700 "$state/etcd"
token="$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')"
umask 077
printf '%s,cpps-admin,cpps-admin,"system:masters"\n' "$token" > "$state/tokens.csv"
openssl genrsa -out "$state/sa.key" 2048 2>/dev/null
openssl rsa -in "$state/sa.key" -pubout -out "$state/sa.pub" 2>/dev/null
umask 022

start_time=$(date +%s.%N)
: > "$state/pids"
nohup "$etcd_bin" --name cpps-test --data-dir "$state/etcd" \
  --listen-client-urls "http://127.0.0.1:$etcd_client" --advertise-client-urls "http://127.0.0.1:$etcd_client" \
  --listen-peer-urls "http://127.0.0.1:$etcd_peer" --initial-advertise-peer-urls "http://127.0.0.1:$etcd_peer" \
  --initial-cluster "cpps-test=http://127.0.0.1:$etcd_peer" \
  > "$state/etcd.log" 2>&1 < /dev/null &
echo $! >> "$state/pids"

nohup "$apiserver" \
  --etcd-servers "http://127.0.0.1:$etcd_client" \
  --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$api_port" --insecure-port 0 \
  --cert-dir "$state/certs" \
  --token-auth-file "$state/tokens.csv" --authorization-mode RBAC \
  --service-account-key-file "$state/sa.pub" --service-account-signing-key-file "$state/sa.key" \
  --service-account-issuer https://kubernetes.default.svc \
  --service-cluster-ip-range 10.96.0.0/24 \
  --disable-admission-plugins ServiceAccount \
  > "$state/kube-apiserver.log" 2>&1 < /dev/null &
echo $! >> "$state/pids"

ready=""
for _ in $(seq 1 240); do
  if [ -s "$state/certs/apiserver.crt" ] && \
     [ "$(curl -s --cacert "$state/certs/apiserver.crt" -H "Authorization: Bearer $token" \
           "https://127.0.0.1:$api_port/readyz" 2>/dev/null)" = "ok" ]; then
    ready=1
    break
  fi
  for pid in $(cat "$state/pids"); do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "kube-start: a process exited early; logs:" >&2
      tail -n 20 "$state/etcd.log" "$state/kube-apiserver.log" >&2
      bash "$here/kube-stop.sh" "$state" >/dev/null 2>&1 || true
      exit 1
    fi
  done
  sleep 0.25
done
if [ -z "$ready" ]; then
  echo "kube-start: /readyz did not answer ok within 60 s; log tail:" >&2
  tail -n 20 "$state/kube-apiserver.log" >&2
  bash "$here/kube-stop.sh" "$state" >/dev/null 2>&1 || true
  exit 1
fi
elapsed=$(python3 -c "import time; print(f'{time.time() - $start_time:.1f}')")

ca="$(base64 -w0 < "$state/certs/apiserver.crt")"
umask 077
cat > "$state/kubeconfig" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
- name: cpps-test
  cluster:
    server: https://127.0.0.1:$api_port
    certificate-authority-data: $ca
users:
- name: cpps-admin
  user:
    token: $token
contexts:
- name: cpps-test
  context:
    cluster: cpps-test
    user: cpps-admin
current-context: cpps-test
KUBECONFIG
echo "kube-start: etcd on 127.0.0.1:$etcd_client, kube-apiserver on https://127.0.0.1:$api_port, ready in ${elapsed}s" >&2
echo "CPPS_TEST_KUBECONFIG=$state/kubeconfig"
