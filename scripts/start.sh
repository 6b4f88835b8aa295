#!/usr/bin/env bash
# The first command: install what is missing, build, and start berthd in the background on a socket the docker CLI
# can use. Extra arguments go to berthd (e.g. --containerd /run/containerd/containerd.sock, -H tcp://127.0.0.1:2375).
# Without --containerd berth starts (and supervises) its own containerd under its data root.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
SOCK=${BERTH_SOCK:-/var/run/berth.sock}
DATA=${BERTH_DATA_ROOT:-/var/lib/berth}
EXEC=${BERTH_EXEC_ROOT:-/run/berth}
LOG=${BERTH_LOG:-/var/log/berth.log}
PIDFILE=$EXEC/berthd.pid

ensure_runtime
ensure_build

if [[ -f $PIDFILE ]] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then
  log "berthd already running (pid $(cat "$PIDFILE")); stopping it first"
  kill "$(cat "$PIDFILE")"; for _ in $(seq 50); do kill -0 "$(cat "$PIDFILE")" 2>/dev/null || break; sleep 0.1; done
fi
mkdir -p "$EXEC" "$DATA" "$(dirname "$LOG")"
nohup setsid "$BERTH_ROOT/bin/berthd" -H "unix://$SOCK" --data-root "$DATA" --exec-root "$EXEC" "$@" >>"$LOG" 2>&1 </dev/null &
echo $! >"$PIDFILE"
for _ in $(seq 150); do
  if curl -fsS --unix-socket "$SOCK" http://berth/_ping >/dev/null 2>&1; then
    log "berth is serving on unix://$SOCK (pid $(cat "$PIDFILE"), log $LOG)"
    echo "export DOCKER_HOST=unix://$SOCK"
    exit 0
  fi
  kill -0 "$(cat "$PIDFILE")" 2>/dev/null || { log "berthd exited; last log lines:"; tail -20 "$LOG" >&2; exit 1; }
  sleep 0.1
done
log "berthd did not answer /_ping within 15 s; see $LOG"; exit 1
