#!/usr/bin/env bash
# Regenerates test/golden/raw/escapes.json from a running reference engine (Docker Engine 20.10, set up as
# /work/shared/reference.md says): requests whose path or query holds an invalid %-escape, written byte for byte to
# the socket (an HTTP client library would refuse or re-encode them). For each, the answer's status, the headers a
# client acts on (Content-Type, Connection) and the body are kept. test/integration/golden-raw.test.ts replays the
# same bytes against berth. An invalid query is answered per route by the reference: a 400 with Go's ParseForm error
# where the handler parses its form first (src/http/form.ts), the answer as without the pair elsewhere.
#
#   bash scripts/capture-golden-raw.sh /path/to/docker.sock [outdir]
set -euo pipefail
SOCK=${1:?usage: capture-golden-raw.sh /path/to/docker.sock [outdir]}
OUT=${2:-$(cd "$(dirname "$0")/.." && pwd)/test/golden/raw}
mkdir -p "$OUT"
exec node - "$SOCK" "$OUT" <<'EOF'
const net = require('node:net');
const fs = require('node:fs');
const path = require('node:path');
const [sock, out] = process.argv.slice(2);

const REQUESTS = [
  { name: 'an invalid escape in the path, no version', target: '/containers/%ZZ/json' },
  { name: 'an invalid escape in the path, v1.24', target: '/v1.24/containers/%ZZ/json' },
  { name: 'a lone % in the path', target: '/v1.24/images/%/json' },
  { name: 'an invalid escape in a lean route (stats)', target: '/v1.24/containers/%ZZ/stats?stream=0' },
  // the query: a 400 with Go's ParseForm error where the handler parses its form, else the pair is dropped
  { name: 'a query escape, a handler that parses its form', target: '/v1.24/containers/json?all=%ZZ' },
  { name: 'a short escape at the end of the query', target: '/v1.24/containers/json?a=%2' },
  { name: 'two bad escapes: the first is answered', target: '/v1.24/containers/json?all=%ZZ&b=%YY' },
  { name: 'a bad escape then a semicolon: the semicolon is answered', target: '/v1.24/containers/json?%ZZ=1&all=1;x=2' },
  { name: 'a semicolon in the query of the logs', target: '/v1.24/containers/nonexist/logs?stdout=1;stderr=1' },
  { name: 'a bad escape in the query of a volume list', target: '/v1.24/volumes?filters=%Z' },
  { name: 'a bad escape in the query of the stats (the lean route)', target: '/v1.24/containers/nonexist/stats?stream=%ZZ' },
  { name: 'a semicolon in the query of the stats (the lean route)', target: '/v1.24/containers/nonexist/stats?stream=0;x=1' },
  { name: 'a bad escape in the query of an inspect: the pair is dropped', target: '/v1.24/containers/nonexist/json?size=%ZZ' },
  { name: 'a bad escape in the query of an image inspect: the pair is dropped', target: '/v1.24/images/nonexist/json?x=%ZZ' },
];

function raw(target) {
  return new Promise((resolve, reject) => {
    const c = net.connect(sock);
    const chunks = [];
    c.on('data', (d) => chunks.push(d));
    c.on('error', reject);
    // (the reference closes after these answers; a keep-alive answer is cut after 1 s)
    const timer = setTimeout(() => c.destroy(), 1000);
    c.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      const [head, ...rest] = text.split('\r\n\r\n');
      const [statusLine, ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), contentType: headers['content-type'] ?? null, connection: headers['connection'] ?? null, body: rest.join('\r\n\r\n') });
    });
    c.write(`GET ${target} HTTP/1.1\r\nHost: docker\r\n\r\n`);
  });
}

(async () => {
  const answers = [];
  for (const r of REQUESTS) answers.push({ name: r.name, request: { method: 'GET', target: r.target }, ...(await raw(r.target)) });
  const doc = { engine: 'Docker Engine 20.10 (scripts/capture-golden-raw.sh)', capturedAt: new Date().toISOString(), answers };
  fs.writeFileSync(path.join(out, 'escapes.json'), JSON.stringify(doc, null, 2) + '\n');
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
EOF
