#!/usr/bin/env bash
# Starts two Prism mock servers (npm `@stoplight/prism-cli@5`) for the official LINSTOR REST API
# spec: one answering with the spec's examples, one with `-d` (random schema-valid answers).
# Prism validates every request against the spec; see ../shared/design/testing.md.
#
# Usage: xtask/env/prism.sh STATE_DIR
#   Installs Prism once into ${CPPS_TOOL_CACHE:-$HOME/.cache/cpps-tools}/prism (outside the
#   repository) and reuses it; writes the servers' pids to STATE_DIR/prism-*.pid and their logs to
#   STATE_DIR/prism-*.log; prints, as its last two stdout lines:
#     CPPS_TEST_PRISM_URL=http://127.0.0.1:P1
#     CPPS_TEST_PRISM_DYNAMIC_URL=http://127.0.0.1:P2
#   Stop them with: kill $(cat STATE_DIR/prism-*.pid)
set -euo pipefail

state="${1:?usage: prism.sh STATE_DIR}"
mkdir -p "$state"
state="$(cd "$state" && pwd)"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

# The repository carries its own copy of the spec (source in cpps-linstor/tests/fixtures/SOURCE.md);
# CPPS_LINSTOR_SPEC overrides it, for instance with ${CPPS_SHARED_DIR:-../shared}/specs/….
spec="${CPPS_LINSTOR_SPEC:-$root/cpps-linstor/tests/fixtures/linstor-rest-v1-openapi.yaml}"
if [ ! -f "$spec" ]; then
  shared="${CPPS_SHARED_DIR:-$root/../shared}"
  spec="$shared/specs/linstor-rest-v1-openapi.yaml"
fi
[ -f "$spec" ] || { echo "prism.sh: spec not found: $spec" >&2; exit 1; }

cache="${CPPS_TOOL_CACHE:-$HOME/.cache/cpps-tools}/prism"
prism="$cache/node_modules/.bin/prism"
if [ ! -x "$prism" ]; then
  bash "$root/xtask/env/install.sh" npm "$cache" '@stoplight/prism-cli@5'
fi
[ -x "$prism" ] || { echo "prism.sh: Prism did not install into $cache" >&2; exit 1; }

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()' 2>/dev/null \
    || node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

start() { # name port extra-args...
  local name="$1" port="$2"; shift 2
  nohup "$prism" mock -h 127.0.0.1 -p "$port" "$@" "$spec" >"$state/prism-$name.log" 2>&1 &
  echo $! >"$state/prism-$name.pid"
}

wait_ready() { # name port
  local name="$1" port="$2" i
  for i in $(seq 1 120); do
    # Any HTTP answer means Prism is listening; /v1/controller/version is in the spec.
    if curl -s -o /dev/null -m 2 "http://127.0.0.1:$port/v1/controller/version"; then return 0; fi
    if ! kill -0 "$(cat "$state/prism-$name.pid")" 2>/dev/null; then
      echo "prism.sh: Prism ($name) exited; its log:" >&2; cat "$state/prism-$name.log" >&2; exit 1
    fi
    sleep 0.5
  done
  echo "prism.sh: Prism ($name) did not answer on 127.0.0.1:$port within 60 s; its log:" >&2
  cat "$state/prism-$name.log" >&2
  exit 1
}

p1="$(free_port)"
start static "$p1"
p2="$(free_port)"
while [ "$p2" = "$p1" ]; do p2="$(free_port)"; done
start dynamic "$p2" -d
wait_ready static "$p1"
wait_ready dynamic "$p2"

echo "CPPS_TEST_PRISM_URL=http://127.0.0.1:$p1"
echo "CPPS_TEST_PRISM_DYNAMIC_URL=http://127.0.0.1:$p2"
