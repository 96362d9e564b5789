#!/usr/bin/env bash
# Makes Prometheus and promtool available for the exporter's tests (Debian's `prometheus`
# package, 2.42 on bookworm; see ../shared/design/testing.md). It starts nothing: the test
# starts its own Prometheus on 127.0.0.1 scraping the exporter it runs. Installing twice is a
# no-op.
#
#   xtask/env/prometheus.sh STATE_DIR
#
# The last lines on stdout are `CPPS_TEST_PROMETHEUS=…` and `CPPS_TEST_PROMTOOL=…`.
set -euo pipefail
if [ $# -ne 1 ]; then echo "usage: $0 STATE_DIR" >&2; exit 2; fi
mkdir -p "$1"
if ! command -v prometheus >/dev/null 2>&1 || ! command -v promtool >/dev/null 2>&1; then
  # Without recommends (install.sh): the web console libraries and node exporter are not needed.
  # The package enables and starts a system Prometheus on :9090 where init runs; the tests
  # start their own on a free port and never talk to it.
  bash "$(dirname "$0")/install.sh" apt prometheus
fi
prometheus=$(command -v prometheus)
promtool=$(command -v promtool)
"$promtool" --version >&2
echo "CPPS_TEST_PROMETHEUS=$prometheus"
echo "CPPS_TEST_PROMTOOL=$promtool"
