#!/usr/bin/env bash
# The cpps check of the team's infrastructure repository, with the IaC as evidence: any CI
# system can run it (the GitHub Actions workflow in github/cpps-check.yml calls it too).
#
#   examples/ci/cpps-check.sh            (run from the root of the infrastructure repository)
#
# It reads, relative to the repository root (each can be changed by an environment variable):
#   CPPS_DIR        the cpps checkout                          (default: cpps)
#   TOPOLOGY        the topology file                          (default: topology.yaml)
#   PULUMI_DIR      the Pulumi program (Pulumi.yaml, __main__.py) (default: pulumi)
#   PULUMI_STACK    the stack whose Pulumi.<stack>.yaml is read (default: prod)
#   INVENTORY       the Ansible inventory, INI or YAML         (default: ansible/hosts.ini)
#   IAC_MAPPING     a mapping file (`--iac mapping=`), if any   (default: none)
#   STACK_EXPORT    a `pulumi stack export` file, if any        (default: none; see below)
#   FORMAT          text, json, sarif or junit                  (default: sarif)
#   OUT             where the report goes                       (default: cpps.sarif)
#   PYTHON          a Python with pulumi, pulumi-proxmoxve and ansible-core (default: python3)
#
# The program runs under the Pulumi SDK's mocks (no engine, no cloud, no credentials), so what
# the code declares is checked on every pull request; a stack export (made by a job that holds
# the Pulumi credentials: `pulumi stack export --stack prod --file stack.json`) adds what was
# applied. Exit codes are `cargo xtask check`'s: 0 clean, 1 findings that fail, 2 unusable input.
set -euo pipefail

cpps="${CPPS_DIR:-cpps}"
topology="${TOPOLOGY:-topology.yaml}"
program="${PULUMI_DIR:-pulumi}"
stack="${PULUMI_STACK:-prod}"
inventory="${INVENTORY:-ansible/hosts.ini}"
format="${FORMAT:-sarif}"
out="${OUT:-cpps.sarif}"
python="${PYTHON:-python3}"
evidence="${IAC_EVIDENCE_DIR:-.cpps-iac}"
mkdir -p "$evidence"

iac=()
if [ -f "$program/Pulumi.yaml" ]; then
  "$python" "$cpps/xtask/iac/pulumi_mock_run.py" "$program" "$stack" "$evidence/pulumi-mock.json"
  iac+=(--iac "pulumi-mock=$evidence/pulumi-mock.json")
  if [ -f "$program/Pulumi.$stack.yaml" ]; then
    iac+=(--iac "pulumi-config=$program/Pulumi.$stack.yaml")
  fi
fi
if [ -n "${STACK_EXPORT:-}" ]; then
  iac+=(--iac "pulumi-export=$STACK_EXPORT")
fi
if [ -f "$inventory" ]; then
  ansible_inventory="$(dirname "$(command -v "$python")")/ansible-inventory"
  [ -x "$ansible_inventory" ] || ansible_inventory=ansible-inventory
  "$ansible_inventory" -i "$inventory" --list > "$evidence/inventory.json"
  iac+=(--iac "ansible=$evidence/inventory.json" --iac "ansible-source=$inventory")
fi
if [ -n "${IAC_MAPPING:-}" ]; then
  iac+=(--iac "mapping=$IAC_MAPPING")
fi

# Paths stay relative to this repository, so that code scanning places each finding on its
# line (topology file, stack config, inventory).
set +e
cargo run --quiet --manifest-path "$cpps/Cargo.toml" -p xtask -- check \
  --topology "$topology" --format "$format" --output "$out" "${iac[@]}"
status=$?
set -e
echo "cpps-check: report in $out (exit $status)" >&2
exit "$status"
