#!/usr/bin/env bash
# Regenerates test/golden/scenarios/<version>.json (1.18, 1.19, 1.20, 1.22, 1.24) from a running reference engine
# (Docker Engine 20.10, as /work/shared/reference.md sets it up) into which berth's test busybox is loaded as
# golden-bb:latest:
#   npx tsc -p tsconfig.json && node -e "require('./dist/test/helpers/busybox-image').buildBusyboxImage({tags:['golden-bb:latest']}).then(b=>process.stdout.write(b))" \
#     | docker -H unix://$R/docker.sock load
#
#   bash scripts/capture-golden-scenarios.sh /path/to/docker.sock [outdir]
#
# The scenarios are test/helpers/golden-scenarios.ts; every object they make is named golden-* and removed.
# test/integration/golden-scenarios.test.ts runs the same scenarios against berth; bench/parity.ts counts the
# observations that match (node dist/bench/parity.js REF_SOCK BERTH_SOCK).
set -euo pipefail
SOCK=${1:?usage: capture-golden-scenarios.sh /path/to/docker.sock [outdir]}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${2:-$ROOT/test/golden/scenarios}
cd "$ROOT"
npx tsc -p tsconfig.json
exec node dist/test/helpers/golden-scenarios.js "$SOCK" "$OUT"
