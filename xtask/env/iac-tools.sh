#!/usr/bin/env bash
# Installs the IaC tools the cpps-topology IaC tests run for real (see
# ../shared/design/testing.md): the Pulumi Python SDK `pulumi`, the provider package
# `pulumi-proxmoxve` in both majors the team uses (8.x in the venv, 7.x in a folder that goes
# first on PYTHONPATH), and `ansible-core` (for `ansible-inventory --list`). Nothing is started.
#
#   xtask/env/iac-tools.sh STATE_DIR
#
# Everything is cached outside the repository and installed again only when a version differs.
# The last lines on stdout are `CPPS_TEST_IAC_PYTHON=…` (the venv's python, provider 8.x),
# `CPPS_TEST_IAC_PROXMOXVE_SEVEN=…` (a PYTHONPATH folder holding provider 7.x) and
# `CPPS_TEST_ANSIBLE_INVENTORY=…` (the `ansible-inventory` program).
set -euo pipefail
if [ $# -ne 1 ]; then echo "usage: $0 STATE_DIR" >&2; exit 2; fi
mkdir -p "$1"
cache="${CPPS_TOOL_CACHE:-$HOME/.cache/cpps-tools}"
venv="$cache/venv-iac"
pve7="$cache/iac-proxmoxve7"
pulumi_version="3.272.0"
provider8="8.6.0"
provider7="7.13.0"
ansible_version="2.19.14"

installed() { "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('$1') != '$2')" 2>/dev/null; }

if ! installed pulumi "$pulumi_version" || ! installed pulumi_proxmoxve "$provider8" \
  || ! installed ansible-core "$ansible_version"; then
  bash "$(dirname "$0")/install.sh" venv "$venv" "pulumi==$pulumi_version" \
    "pulumi-proxmoxve==$provider8" "ansible-core==$ansible_version"
fi

# Provider 7.x beside 8.x: installed without dependencies (the SDK is the venv's) into a folder
# that a run puts first on PYTHONPATH.
if ! PYTHONPATH="$pve7" "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('pulumi_proxmoxve') != '$provider7')" 2>/dev/null; then
  bash "$(dirname "$0")/install.sh" pip-target "$venv" "$pve7" "pulumi-proxmoxve==$provider7"
fi

"$venv/bin/ansible-inventory" --version >&2
echo "CPPS_TEST_IAC_PYTHON=$venv/bin/python"
echo "CPPS_TEST_IAC_PROXMOXVE_SEVEN=$pve7"
echo "CPPS_TEST_ANSIBLE_INVENTORY=$venv/bin/ansible-inventory"
