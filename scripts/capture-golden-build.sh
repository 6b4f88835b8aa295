#!/usr/bin/env bash
# Regenerates test/golden/build/streams.json from a running reference engine (Docker Engine 20.10, as
# /work/shared/reference.md sets it up; busybox:latest present there):
#   bash scripts/capture-golden-build.sh /path/to/docker.sock [outdir]
# The cases are test/helpers/golden-build.ts; what their builds leave (intermediate images, the failed steps'
# containers) is removed. test/integration/build.test.ts builds the same cases on berth and compares.
set -euo pipefail
SOCK=${1:?usage: capture-golden-build.sh /path/to/docker.sock [outdir]}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
npx tsc -p tsconfig.json
exec node dist/test/helpers/golden-build.js "$SOCK" ${2:+"$2"}
