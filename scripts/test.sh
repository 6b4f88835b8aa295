#!/usr/bin/env bash
# The second command: install what is missing, build (type-check), and run the whole test suite — unit tests, then
# integration tests against a real private containerd that the suite starts in a scratch folder and stops.
# Integration tests never skip: a missing containerd, or any skipped test, fails the run.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ensure_runtime
ensure_cmds curl:curl docker:docker.io docker-registry:docker-registry htpasswd:apache2-utils /bin/busybox:busybox-static \
  script:bsdutils tmux:tmux docker-compose:docker-compose openssl:openssl wat2wasm:wabt \
  gcc:gcc /usr/lib/x86_64-linux-gnu/libc.a:libc6-dev systemd-socket-activate:systemd
ensure_build
cd "$BERTH_ROOT"
out=$(mktemp -d)
status=0
npx jest --selectProjects unit --json --outputFile="$out/unit.json" "$@" || status=$?
npx jest --selectProjects integration --runInBand --forceExit --json --outputFile="$out/integration.json" "$@" || status=$?
node - "$out/unit.json" "$out/integration.json" <<'JS' || status=1
const fs = require('fs');
let passed = 0, failed = 0, skipped = 0, problems = [];
for (const f of process.argv.slice(2)) {
  if (!fs.existsSync(f)) { problems.push(`${f}: jest wrote no results`); failed++; continue; }
  const r = JSON.parse(fs.readFileSync(f, 'utf8'));
  passed += r.numPassedTests; failed += r.numFailedTests + r.numRuntimeErrorTestSuites; skipped += r.numPendingTests + r.numTodoTests;
  if (/integration/.test(f) && r.numPassedTests === 0) problems.push('no integration test ran');
}
if (skipped) problems.push(`${skipped} test(s) skipped: skipping is a failure here`);
for (const p of problems) console.error('[berth] ' + p);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed || problems.length ? 1 : 0);
JS
rm -rf "$out"
exit $status
