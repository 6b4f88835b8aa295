#!/usr/bin/env bash
# Regenerates test/golden/{images,volumes,networks}/<version>.json from a running reference engine (Docker Engine
# 20.10, set up as /work/shared/reference.md says) into which the two images of test/helpers/golden-objects.ts
# (GOLDEN_IMAGES: berth's test busybox as g2-bb:latest, and the same with a label as g2-lbl:latest) are loaded:
#   npx tsc -p tsconfig.json && node dist/test/helpers/golden-objects.js /tmp \
#     && for f in /tmp/g2-bb-latest.tar /tmp/g2-lbl-latest.tar; do docker -H unix://$R/docker.sock load -i $f; done
#
#   bash scripts/capture-golden-objects.sh /path/to/docker.sock [outdir]
#
# Images (every version 1.18 ... 1.24): a tag of g2-bb and a container made from g2-lbl, then list (filter, all,
# digests), inspect, history and the error answers (missing image, delete of an image a container uses, bad tag).
# Volumes and networks (1.21 ... 1.24, the versions that have them): a volume and a container using it, a network
# with an IPAM config; list, inspect and the error answers. The ids of objects made by the setup are written in paths
# as {name}, and the cleanup requests are stored too; test/integration/golden-objects.test.ts replays the same
# requests against berth.
set -euo pipefail
SOCK=${1:?usage: capture-golden-objects.sh /path/to/docker.sock [outdir]}
OUT=${2:-$(cd "$(dirname "$0")/.." && pwd)/test/golden}
exec node - "$SOCK" "$OUT" <<'JS'
const http = require('node:http');
const fs = require('node:fs');
const path = require('node:path');
const [sock, out] = process.argv.slice(2);

const VERSIONS = ['1.18', '1.19', '1.20', '1.21', '1.22', '1.23', '1.24'];
const q = (o) => encodeURIComponent(JSON.stringify(o));

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

async function answer(name, method, template, ids, body) {
  const p = template.replace(/\{(\w+)\}/g, (_, k) => ids[k]);
  const r = await call(method, p, body);
  const isJson = /^application\/json/.test(r.contentType ?? '');
  const entry = { name, request: { method, path: template, ...(body !== undefined ? { body } : {}) }, status: r.status, contentType: r.contentType };
  if (isJson && r.text.length) entry.body = JSON.parse(r.text);
  else entry.text = r.text;
  return entry;
}

/** Runs the setup steps (each must answer `status`; `id` names the id in its answer), then the answers, then cleanup. */
async function capture(v, plan) {
  const ids = {};
  const setup = [];
  const answers = [];
  try {
    for (const s of plan.setup) {
      const a = await answer(s.name, s.method, s.path, ids, s.body);
      if (a.status !== s.status) throw new Error(`${s.name} at ${v}: ${a.status} ${a.text ?? JSON.stringify(a.body)}`);
      if (s.id) ids[s.id] = a.body.Id;
      setup.push(a);
    }
    for (const s of plan.answers) answers.push(await answer(s.name, s.method, s.path, ids, s.body));
  } finally {
    for (const [method, p] of plan.cleanup) await call(method, p.replace(/\{(\w+)\}/g, (_, k) => ids[k]));
  }
  return { version: v, setup, answers, cleanup: plan.cleanup.map(([method, p]) => ({ method, path: p })) };
}

const CONTAINER = (image, extra = {}) => ({ Image: image, Cmd: ['true'], HostConfig: { NetworkMode: 'none', ...extra } });

function images(v) {
  const t = v.replace('.', '');
  const tagged = `g2-img-${t}`;
  return {
    setup: [
      { name: 'tag', method: 'POST', path: `/v${v}/images/g2-bb:latest/tag?repo=${tagged}&tag=v1`, status: 201 },
      { name: 'create user', method: 'POST', path: `/v${v}/containers/create?name=g2-imguser-${t}`, body: CONTAINER('g2-lbl:latest'), status: 201, id: 'user' },
    ],
    answers: [
      { name: 'list', method: 'GET', path: `/v${v}/images/json?filter=${tagged}` },
      { name: 'list all', method: 'GET', path: `/v${v}/images/json?all=1&filter=${tagged}` },
      { name: 'list digests', method: 'GET', path: `/v${v}/images/json?digests=1&filter=${tagged}` },
      { name: 'list labelled', method: 'GET', path: `/v${v}/images/json?filter=g2-lbl` },
      { name: 'list label filter', method: 'GET', path: `/v${v}/images/json?filters=${q({ label: ['g2=yes'] })}` },
      { name: 'inspect', method: 'GET', path: `/v${v}/images/${tagged}:v1/json` },
      { name: 'inspect labelled', method: 'GET', path: `/v${v}/images/g2-lbl:latest/json` },
      { name: 'history', method: 'GET', path: `/v${v}/images/g2-lbl:latest/history` },
      { name: 'inspect missing', method: 'GET', path: `/v${v}/images/g2-nope:latest/json` },
      { name: 'history missing', method: 'GET', path: `/v${v}/images/g2-nope:latest/history` },
      { name: 'delete in use', method: 'DELETE', path: `/v${v}/images/g2-lbl:latest` },
      { name: 'tag bad repo', method: 'POST', path: `/v${v}/images/g2-bb:latest/tag?repo=G2-BAD&tag=v1` },
      { name: 'tag missing', method: 'POST', path: `/v${v}/images/g2-nope:latest/tag?repo=g2-x&tag=v1` },
      { name: 'delete by id in two repositories', method: 'DELETE', path: `/v${v}/images/442a09b36140` },
      { name: 'untag', method: 'DELETE', path: `/v${v}/images/${tagged}:v1` },
      { name: 'delete missing', method: 'DELETE', path: `/v${v}/images/g2-nope:latest` },
    ],
    cleanup: [['DELETE', `/v${v}/containers/{user}?force=1`], ['DELETE', `/v${v}/images/${tagged}:v1`]],
  };
}

function volumes(v) {
  const t = v.replace('.', '');
  const name = `g2-vol-${t}`;
  return {
    setup: [
      { name: 'create', method: 'POST', path: `/v${v}/volumes/create`, body: { Name: name, Driver: 'local', Labels: { g2: 'yes' } }, status: 201 },
      { name: 'create unlabelled', method: 'POST', path: `/v${v}/volumes/create`, body: { Name: `${name}-b` }, status: 201 },
      // Made with the 1.24 form: volume names in Binds are since v1.22.
      { name: 'create user', method: 'POST', path: `/v1.24/containers/create?name=g2-voluser-${t}`, body: CONTAINER('g2-bb:latest', { Binds: [`${name}:/data`] }), status: 201, id: 'user' },
    ],
    answers: [
      { name: 'list', method: 'GET', path: `/v${v}/volumes` },
      ...(v >= '1.22' ? [{ name: 'list dangling', method: 'GET', path: `/v${v}/volumes?filters=${q({ dangling: ['true'] })}` }] : []),
      ...(v >= '1.24' ? [{ name: 'list by name', method: 'GET', path: `/v${v}/volumes?filters=${q({ name: [`${name}-b`] })}` }] : []),
      { name: 'inspect', method: 'GET', path: `/v${v}/volumes/${name}` },
      { name: 'inspect unlabelled', method: 'GET', path: `/v${v}/volumes/${name}-b` },
      { name: 'inspect missing', method: 'GET', path: `/v${v}/volumes/g2-nope` },
      { name: 'remove in use', method: 'DELETE', path: `/v${v}/volumes/${name}` },
      ...(v >= '1.24' ? [{ name: 'list not dangling', method: 'GET', path: `/v${v}/volumes?filters=${q({ dangling: ['false'] })}` }] : []),
      ...(v >= '1.24' ? [{ name: 'list by driver', method: 'GET', path: `/v${v}/volumes?filters=${q({ driver: ['loc'] })}` }] : []),
      { name: 'remove missing', method: 'DELETE', path: `/v${v}/volumes/g2-nope` },
      { name: 'remove', method: 'DELETE', path: `/v${v}/volumes/${name}-b` },
    ],
    cleanup: [['DELETE', `/v${v}/containers/{user}?force=1`], ['DELETE', `/v${v}/volumes/${name}`], ['DELETE', `/v${v}/volumes/${name}-b`]],
  };
}

function networks(v, n) {
  const t = v.replace('.', '');
  const name = `g2-net-${t}`;
  const ipam = { Driver: 'default', Config: [{ Subnet: `172.31.${200 + n}.0/24`, IPRange: `172.31.${200 + n}.128/25`, Gateway: `172.31.${200 + n}.1` }] };
  return {
    setup: [
      { name: 'create', method: 'POST', path: `/v${v}/networks/create`, body: { Name: name, Driver: 'bridge', CheckDuplicate: true, IPAM: ipam, Options: { 'com.docker.network.bridge.name': `g2br${t}` }, Labels: { g2: 'yes' } }, status: 201, id: 'net' },
      // A running container on the network (made with the 1.24 form: custom network names in NetworkMode are since
      // v1.22), so that Containers has an entry.
      { name: 'create user', method: 'POST', path: `/v1.24/containers/create?name=g2-netuser-${t}`, body: { Image: 'g2-bb:latest', Cmd: ['sleep', '300'], HostConfig: { NetworkMode: name } }, status: 201, id: 'user' },
      { name: 'start user', method: 'POST', path: `/v${v}/containers/{user}/start`, status: 204 },
    ],
    answers: [
      { name: 'list by name', method: 'GET', path: `/v${v}/networks?filters=${q({ name: [name] })}` },
      { name: 'list by id', method: 'GET', path: `/v${v}/networks?filters=${q({ id: ['{net}'] })}`.replace(encodeURIComponent('{net}'), '{net}') },
      { name: 'list custom', method: 'GET', path: `/v${v}/networks?filters=${q({ type: ['custom'] })}` },
      { name: 'list builtin none', method: 'GET', path: `/v${v}/networks?filters=${q({ type: ['builtin'], name: ['none'] })}` },
      { name: 'inspect', method: 'GET', path: `/v${v}/networks/${name}` },
      { name: 'inspect by id', method: 'GET', path: `/v${v}/networks/{net}` },
      { name: 'inspect missing', method: 'GET', path: `/v${v}/networks/g2-nope` },
      { name: 'create duplicate', method: 'POST', path: `/v${v}/networks/create`, body: { Name: name, CheckDuplicate: true } },
      { name: 'create unknown driver', method: 'POST', path: `/v${v}/networks/create`, body: { Name: `g2-bad-${t}`, Driver: 'g2nosuchdriver' } },
      ...(v >= '1.24'
        ? [
            { name: 'list by driver and name', method: 'GET', path: `/v${v}/networks?filters=${q({ driver: ['bridge'], name: ['g2-net'] })}` },
            { name: 'list by label', method: 'GET', path: `/v${v}/networks?filters=${q({ label: ['g2=yes'] })}` },
          ]
        : []),
      { name: 'remove in use', method: 'DELETE', path: `/v${v}/networks/{net}` },
      { name: 'remove user', method: 'DELETE', path: `/v${v}/containers/{user}?force=1` },
      { name: 'remove', method: 'DELETE', path: `/v${v}/networks/{net}` },
      { name: 'remove missing', method: 'DELETE', path: `/v${v}/networks/g2-nope` },
    ],
    cleanup: [['DELETE', `/v${v}/containers/{user}?force=1`], ['DELETE', `/v${v}/networks/{net}`], ['DELETE', `/v${v}/networks/g2-bad-${t}`]],
  };
}

(async () => {
  const ver = JSON.parse((await call('GET', '/version')).text);
  const engine = `Docker Engine ${ver.Version} (API ${ver.ApiVersion}), ${ver.Os}/${ver.Arch}`;
  const areas = { images: (v) => images(v), volumes: (v) => volumes(v), networks: (v, i) => networks(v, i) };
  const only = process.env.AREAS ? process.env.AREAS.split(',') : Object.keys(areas);
  for (const area of only) {
    fs.mkdirSync(path.join(out, area), { recursive: true });
    for (const [i, v] of VERSIONS.entries()) {
      if (area !== 'images' && v < '1.21') continue;
      const fixture = { engine, capturedAt: new Date().toISOString(), ...(await capture(v, areas[area](v, i))) };
      const file = path.join(out, area, `${v}.json`);
      fs.writeFileSync(file, JSON.stringify(fixture, null, 2) + '\n');
      console.log(`wrote ${file}`);
    }
  }
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
JS
