#!/usr/bin/env bash
# Stops what kube-start.sh STATE_DIR started (the pids in STATE_DIR/pids), apiserver first.
set -uo pipefail
state="${1:?usage: kube-stop.sh STATE_DIR}"
[ -s "$state/pids" ] || exit 0
pids=$(tac "$state/pids")
for pid in $pids; do kill "$pid" 2>/dev/null; done
for _ in $(seq 1 40); do
  alive=""
  for pid in $pids; do kill -0 "$pid" 2>/dev/null && alive=1; done
  [ -z "$alive" ] && break
  sleep 0.25
done
for pid in $pids; do kill -9 "$pid" 2>/dev/null; done
: > "$state/pids"
