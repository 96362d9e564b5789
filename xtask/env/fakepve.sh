#!/usr/bin/env bash
# Starts fakepve (PyPI `fakepve`, a fake of the PVE 9 API; see ../shared/design/testing.md) for
# the cpps-proxmox integration tests, on 127.0.0.1 only.
#
#   xtask/env/fakepve.sh STATE_DIR [GUESTS_JSON]
#
# The Python venv is cached outside the repository. The server runs in the background
# (pid in STATE_DIR/fakepve.pid, log in STATE_DIR/fakepve.log) with the estate of
# cpps-proxmox/tests/fakepve/guests.json, a CA-signed certificate (CA in STATE_DIR/ca.pem), an
# API token and root@pam/secret. STATE_DIR/fakepve.json says where everything is. The last line
# on stdout is `CPPS_TEST_FAKEPVE=STATE_DIR/fakepve.json`.
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 2 ]; then echo "usage: $0 STATE_DIR [GUESTS_JSON]" >&2; exit 2; fi
state=$(mkdir -p "$1" && cd "$1" && pwd)
repo=$(cd "$(dirname "$0")/../.." && pwd)
cache="${CPPS_TOOL_CACHE:-$HOME/.cache/cpps-tools}"
venv="$cache/venv-fakepve"
version="0.5.0"

if ! "$venv/bin/python" -c "import fakepve, cryptography, sys; sys.exit(fakepve.__version__ != '$version')" 2>/dev/null; then
  bash "$repo/xtask/env/install.sh" venv "$venv" "fakepve[crypto]==$version"
fi

# A server left by an earlier run in the same state folder is stopped first.
if [ -f "$state/fakepve.pid" ]; then
  old=$(cat "$state/fakepve.pid")
  if kill -0 "$old" 2>/dev/null && grep -q serve.py "/proc/$old/cmdline" 2>/dev/null; then
    kill "$old" 2>/dev/null || true
    sleep 0.5
  fi
  rm -f "$state/fakepve.pid"
fi
rm -f "$state/fakepve.json"

# The estate: the tests' small one unless a file is given (the benchmark's CPPS-sized one).
guests="${2:-$repo/cpps-proxmox/tests/fakepve/guests.json}"
nohup "$venv/bin/python" "$repo/cpps-proxmox/tests/fakepve/serve.py" "$state" \
  "$guests" >"$state/fakepve.log" 2>&1 &
pid=$!
echo "$pid" > "$state/fakepve.pid"

for _ in $(seq 1 100); do
  if [ -f "$state/fakepve.json" ]; then
    url=$("$venv/bin/python" -c "import json,sys; print(json.load(open(sys.argv[1]))['url'])" "$state/fakepve.json")
    # Ready when the API answers (401 without credentials is an answer).
    if "$venv/bin/python" - "$url" "$state/ca.pem" <<'PY' >/dev/null 2>&1
import ssl, sys, urllib.request, urllib.error
ctx = ssl.create_default_context(cafile=sys.argv[2])
try:
    urllib.request.urlopen(sys.argv[1] + 'api2/json/version', context=ctx, timeout=2)
except urllib.error.HTTPError as e:
    sys.exit(0 if e.code == 401 else 1)
PY
    then
      echo "fakepve ready at $url (pid $pid)" >&2
      echo "CPPS_TEST_FAKEPVE=$state/fakepve.json"
      exit 0
    fi
  fi
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "fakepve exited early; its log:" >&2
    cat "$state/fakepve.log" >&2
    exit 1
  fi
  sleep 0.2
done
echo "fakepve did not become ready in 20 s; its log:" >&2
cat "$state/fakepve.log" >&2
kill "$pid" 2>/dev/null || true
exit 1
