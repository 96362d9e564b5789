#!/usr/bin/env bash
# Installs what the test servers and benchmarks need, one install at a time on this machine.
#
#   xtask/env/install.sh apt PACKAGE...          Debian packages not yet installed
#   xtask/env/install.sh venv DIR SPEC...        a Python venv in DIR holding pip SPECs
#   xtask/env/install.sh pip-target VENV DIR SPEC...  pip SPECs, no dependencies, into DIR
#   xtask/env/install.sh npm PREFIX SPEC...      npm SPECs under PREFIX
#
# The service scripts start at the same time (`cargo xtask test` starts them while the tests
# compile), and apt refuses a second apt-get while one runs. So every install takes one lock of
# the machine's (CPPS_INSTALL_LOCK, default /var/lock/cpps-tools-install.lock) and waits for it, and
# apt-get also waits for dpkg's own locks held by anything else (unattended upgrades, a person).
# `apt-get update` runs at most once an hour, under the same lock. A failed install prints which
# packages failed, the command's exit status and its last lines, once, and exits non-zero.
# The script can also be sourced: it then only defines the functions below.
set -euo pipefail

cpps_cache="${CPPS_TOOL_CACHE:-$HOME/.cache/cpps-tools}"
# How long to wait for another install (a cold kube-apiserver build holds it for minutes).
cpps_lock_wait="${CPPS_INSTALL_LOCK_WAIT:-1800}"

cpps_lock_file() {
  if [ -n "${CPPS_INSTALL_LOCK:-}" ]; then echo "$CPPS_INSTALL_LOCK"
  elif [ -w /var/lock ]; then echo /var/lock/cpps-tools-install.lock
  else mkdir -p "$cpps_cache" && echo "$cpps_cache/install.lock"
  fi
}

# cpps_locked WHAT COMMAND...: runs COMMAND holding the install lock; on failure says WHAT failed.
cpps_locked() {
  local what="$1" lock log status=0
  shift
  lock="$(cpps_lock_file)"
  log="$(mktemp)"
  flock -E 75 -w "$cpps_lock_wait" "$lock" "$@" >"$log" 2>&1 || status=$?
  if [ "$status" -eq 75 ]; then
    echo "install.sh: installing $what: another install held $lock for over $cpps_lock_wait s" >&2
    rm -f "$log"
    return "$status"
  elif [ "$status" -ne 0 ]; then
    echo "install.sh: installing $what failed (exit status $status); its last lines:" >&2
    tail -n 15 "$log" | sed 's/^/    /' >&2
    rm -f "$log"
    return "$status"
  fi
  cat "$log" >&2
  rm -f "$log"
}

# The body of `apt` under the lock: packages found missing by the caller are checked again,
# since the install of another script may have brought them while this one waited.
cpps_apt_locked() {
  export DEBIAN_FRONTEND=noninteractive
  local need=() p stamp="$cpps_cache/apt-updated"
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || need+=("$p"); done
  [ ${#need[@]} -eq 0 ] && return 0
  mkdir -p "$cpps_cache"
  if [ -z "$(find "$stamp" -mmin -60 2>/dev/null)" ]; then
    apt-get -o DPkg::Lock::Timeout=600 update -qq
    touch "$stamp"
  fi
  # --no-install-recommends: only what the package needs to run (no web consoles, no docs).
  apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${need[@]}"
}

cpps_apt() {
  local need=() p
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || need+=("$p"); done
  [ ${#need[@]} -eq 0 ] && return 0
  echo "install.sh: apt-get install ${need[*]}" >&2
  cpps_locked "Debian packages ${need[*]}" bash "${BASH_SOURCE[0]}" apt-locked "${need[@]}"
}

cpps_venv() {
  local dir="$1"
  shift
  echo "install.sh: pip install $* into $dir" >&2
  cpps_locked "pip packages $* (venv $dir)" \
    bash -c 'python3 -m venv "$1" && shift && "$0/bin/pip" install -q --disable-pip-version-check "$@"' \
    "$dir" "$dir" "$@"
}

cpps_pip_target() {
  local venv="$1" dir="$2"
  shift 2
  echo "install.sh: pip install --no-deps $* into $dir" >&2
  cpps_locked "pip packages $* (folder $dir)" \
    bash -c 'rm -rf "$1" && "$0/bin/pip" install -q --disable-pip-version-check --no-deps --target "$1" "${@:2}"' \
    "$venv" "$dir" "$@"
}

cpps_npm() {
  local prefix="$1"
  shift
  command -v npm >/dev/null || { echo "install.sh: npm is required to install $*" >&2; return 1; }
  echo "install.sh: npm install $* under $prefix" >&2
  mkdir -p "$prefix"
  cpps_locked "npm packages $*" \
    npm install --silent --no-audit --no-fund --prefix "$prefix" "$@"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  verb="${1:?usage: install.sh apt|venv|pip-target|npm ARGS...}"
  shift
  case "$verb" in
    apt) cpps_apt "$@" ;;
    apt-locked) cpps_apt_locked "$@" ;;
    venv) cpps_venv "$@" ;;
    pip-target) cpps_pip_target "$@" ;;
    npm) cpps_npm "$@" ;;
    *) echo "install.sh: unknown verb $verb" >&2; exit 2 ;;
  esac
fi
