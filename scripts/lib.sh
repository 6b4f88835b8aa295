# Shared by scripts/start.sh and scripts/test.sh: install what is missing (Debian packages, npm modules) and build.
set -euo pipefail
BERTH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export DEBIAN_FRONTEND=noninteractive

log() { printf '[berth] %s\n' "$*" >&2; }

# ensure_cmds "cmd:package" ... — apt-get installs the packages whose command is missing (one update, one install).
ensure_cmds() {
  local missing=()
  for pair in "$@"; do
    local cmd=${pair%%:*} pkg=${pair#*:}
    if [[ $cmd == /* ]]; then [[ -e $cmd ]] || missing+=("$pkg"); else command -v "$cmd" >/dev/null 2>&1 || missing+=("$pkg"); fi
  done
  if ((${#missing[@]})); then
    if [[ $(id -u) -ne 0 ]]; then log "missing packages: ${missing[*]} (run as root to install them)"; return 1; fi
    log "installing: ${missing[*]}"
    apt-get update -q </dev/null >/dev/null
    apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null >/dev/null
  fi
}

ensure_runtime() {
  ensure_cmds node:nodejs npm:npm containerd:containerd runc:runc ip:iproute2 iptables:iptables ps:procps \
    mkfifo:coreutils /usr/lib/cni/bridge:containernetworking-plugins \
    etcd:etcd-server openssl:openssl
}

ensure_build() {
  cd "$BERTH_ROOT"
  local stamp=node_modules/.berth-lock
  # npm install, not npm ci: npm 11 writes lock files without other platforms' optional packages, which npm ci
  # then refuses; npm install with the lock file installs the same versions.
  if [[ ! -d node_modules || ! -f $stamp ]] || ! cmp -s package-lock.json "$stamp"; then
    log "npm install"
    npm install --no-audit --no-fund --loglevel=error </dev/null
    cp package-lock.json "$stamp"
  fi
  # tsc, then the bundle bin/berthd runs (scripts/bundle.js: dist/bundle/)
  log "building (tsc, esbuild)"
  npm run -s build
}
