#!/usr/bin/env bash
# Regenerates test/golden/containers/<version>.json from a running reference engine (Docker Engine 20.10, set up as
# /work/shared/reference.md says, with the busybox image of test/helpers/busybox-image.ts loaded into it:
#   node -e "require('./dist/test/helpers/busybox-image').buildBusyboxImage().then(b=>process.stdout.write(b))" \
#     | docker -H unix://$R/docker.sock load).
#
#   bash scripts/capture-golden.sh /path/to/docker.sock [outdir]
#
# For each API version 1.18 ... 1.24 it creates three containers with one fixed body (one left created, one running,
# one stopped), records the answers to list, list with sizes, inspect (with and without sizes) and four error cases,
# then removes the containers. Every answer is stored with the request that produced it; container ids in paths are
# written as {created}, {running}, {exited}. test/integration/golden.test.ts replays the same requests against berth.
set -euo pipefail
SOCK=${1:?usage: capture-golden.sh /path/to/docker.sock [outdir]}
OUT=${2:-$(cd "$(dirname "$0")/.." && pwd)/test/golden/containers}
mkdir -p "$OUT"
exec node - "$SOCK" "$OUT" <<'EOF'
const http = require('node:http');
const fs = require('node:fs');
const path = require('node:path');
const [sock, out] = process.argv.slice(2);

const VERSIONS = ['1.18', '1.19', '1.20', '1.21', '1.22', '1.23', '1.24'];
// One body for every container and version.
const CREATE_BODY = {
  Image: 'busybox',
  Cmd: ['sleep', '300'],
  Env: ['GOLDEN=1'],
  Labels: { golden: 'yes' },
  WorkingDir: '/tmp',
  ExposedPorts: { '8080/tcp': {} },
  HostConfig: { NetworkMode: 'none', Memory: 67108864, CpuShares: 512, RestartPolicy: { Name: 'on-failure', MaximumRetryCount: 2 } },
};
// Created in this order so that the list (newest first) reads created, running, exited.
const STATES = ['exited', 'running', 'created'];

function call(method, p, body) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers = payload ? { 'Content-Type': 'application/json', 'Content-Length': String(payload.length) } : {};
    const req = http.request({ socketPath: sock, method, path: p, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, contentType: res.headers['content-type'] ?? null, text: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

async function answer(v, name, method, template, ids, body) {
  const p = template.replace(/\{(\w+)\}/g, (_, k) => ids[k]);
  const r = await call(method, p, body);
  const isJson = /^application\/json/.test(r.contentType ?? '');
  const entry = { name, request: { method, path: template, ...(body !== undefined ? { body } : {}) }, status: r.status, contentType: r.contentType };
  if (isJson && r.text.length) entry.body = JSON.parse(r.text);
  else entry.text = r.text;
  return entry;
}

async function captureVersion(v) {
  const answers = [];
  const ids = {};
  const setup = [];
  const tag = v.replace('.', '');
  for (const state of STATES) {
    const name = `golden-${state}-${tag}`;
    const create = await answer(v, `create ${state}`, 'POST', `/v${v}/containers/create?name=${name}`, ids, CREATE_BODY);
    if (create.status !== 201) throw new Error(`create at ${v}: ${create.status} ${create.text ?? JSON.stringify(create.body)}`);
    ids[state] = create.body.Id;
    setup.push(create);
    if (state !== 'created') setup.push(await answer(v, `start ${state}`, 'POST', `/v${v}/containers/{${state}}/start`, ids));
    if (state === 'exited') setup.push(await answer(v, `stop ${state}`, 'POST', `/v${v}/containers/{${state}}/stop?t=0`, ids));
  }
  answers.push(await answer(v, 'list', 'GET', `/v${v}/containers/json?all=1`, ids));
  answers.push(await answer(v, 'list with sizes', 'GET', `/v${v}/containers/json?all=1&size=1`, ids));
  for (const state of ['created', 'running', 'exited']) {
    answers.push(await answer(v, `inspect ${state}`, 'GET', `/v${v}/containers/{${state}}/json`, ids));
    answers.push(await answer(v, `inspect ${state} with sizes`, 'GET', `/v${v}/containers/{${state}}/json?size=1`, ids));
  }
  answers.push(await answer(v, 'inspect missing', 'GET', `/v${v}/containers/nope/json`, ids));
  answers.push(await answer(v, 'start missing', 'POST', `/v${v}/containers/nope/start`, ids));
  // Bad bodies whose refusal does not depend on the host (a BlkioWeight out of range is only refused where the
  // kernel supports blkio weights; elsewhere the engine creates the container with a warning).
  answers.push(await answer(v, 'create bad memory', 'POST', `/v${v}/containers/create`, ids, { Image: 'busybox', HostConfig: { Memory: 1 } }));
  answers.push(await answer(v, 'create bad restart policy', 'POST', `/v${v}/containers/create`, ids, { Image: 'busybox', HostConfig: { RestartPolicy: { Name: 'always', MaximumRetryCount: 3 } } }));
  answers.push(await answer(v, 'create missing image', 'POST', `/v${v}/containers/create`, ids, { Image: 'nosuchimage:latest', Cmd: ['true'] }));
  for (const a of answers) if (a.status === 201) throw new Error(`${a.name} at ${v} created a container: ${JSON.stringify(a.body)}`);
  for (const state of STATES) {
    const r = await call('DELETE', `/v${v}/containers/${ids[state]}?force=1`);
    if (r.status !== 204) throw new Error(`remove at ${v}: ${r.status} ${r.text}`);
  }
  return { version: v, setup, answers };
}

(async () => {
  const ver = JSON.parse((await call('GET', '/version')).text);
  for (const v of VERSIONS) {
    const fixture = { engine: `Docker Engine ${ver.Version} (API ${ver.ApiVersion}), ${ver.Os}/${ver.Arch}`, capturedAt: new Date().toISOString(), ...(await captureVersion(v)) };
    const file = path.join(out, `${v}.json`);
    fs.writeFileSync(file, JSON.stringify(fixture, null, 2) + '\n');
    console.log(`wrote ${file}`);
  }
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
EOF
