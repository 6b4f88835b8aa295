#!/usr/bin/env bash
# The second command: install what is missing, build (type-check), and run the whole test suite — unit tests, then
# integration tests against a real private containerd that the suite starts in a scratch folder and stops.
# Integration tests never skip: a missing containerd, or any skipped test, fails the run. Lint runs first; a finding
# fails the run too. Needs root (it says so and stops otherwise).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
if [[ $(id -u) -ne 0 ]]; then
  log "scripts/test.sh needs root: the integration tests run a private containerd, runc, network namespaces and iptables,"
  log "and the archive tests give extracted files their owners. Run it as root (CI does)."
  exit 1
fi
ensure_runtime
ensure_cmds curl:curl docker:docker.io docker-registry:docker-registry htpasswd:apache2-utils /bin/busybox:busybox-static \
  script:bsdutils tmux:tmux docker-compose:docker-compose openssl:openssl wat2wasm:wabt \
  gcc:gcc /usr/lib/x86_64-linux-gnu/libc.a:libc6-dev systemd-socket-activate:systemd \
  /usr/lib/python3/dist-packages/docker/__init__.py:python3-docker
ensure_build
cd "$BERTH_ROOT"
out=$(mktemp -d)
status=0
# The dependency rule of docs/architecture.md, and typescript-eslint's rules: a finding fails the run.
log "lint (eslint)"
lint=0
npm run --silent lint || lint=$?
npx jest --selectProjects unit --json --outputFile="$out/unit.json" "$@" || status=$?
# the client matrix (test/clients: dockerode, testcontainers, the CLI, docker-compose, docker-py) runs with the
# integration tests, on the same private containerd
npx jest --selectProjects integration clients --runInBand --forceExit \
  --json --outputFile="$out/integration.json" "$@" || status=$?
results=("$out/unit.json" "$out/integration.json")
LINT_STATUS=$lint node - "${results[@]}" <<'JS' || status=1
const fs = require('fs');
let passed = 0, failed = 0, skipped = 0, problems = [];
for (const f of process.argv.slice(2)) {
  if (!fs.existsSync(f)) { problems.push(`${f}: jest wrote no results`); failed++; continue; }
  const r = JSON.parse(fs.readFileSync(f, 'utf8'));
  passed += r.numPassedTests; failed += r.numFailedTests + r.numRuntimeErrorTestSuites; skipped += r.numPendingTests + r.numTodoTests;
  if (/integration/.test(f) && r.numPassedTests === 0) problems.push('no integration test ran');
}
if (skipped) problems.push(`${skipped} test(s) skipped: skipping is a failure here`);
if (process.env.LINT_STATUS !== '0') problems.push('lint failed (npm run lint): see its findings above');
for (const p of problems) console.error('[berth] ' + p);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed || problems.length ? 1 : 0);
JS
rm -rf "$out"
exit $status
