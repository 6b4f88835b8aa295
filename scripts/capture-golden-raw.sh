#!/usr/bin/env bash
# Regenerates test/golden/raw/escapes.json from a running reference engine (Docker Engine 20.10, set up as
# /work/shared/reference.md says): requests whose path or query holds an invalid %-escape, written byte for byte to
# the socket (an HTTP client library would refuse or re-encode them). For each, the answer's status, the headers a
# client acts on (Content-Type, Connection) and the body are kept. test/integration/golden-raw.test.ts replays the
# same bytes against berth. An invalid query is answered per route by the reference: a 400 with Go's ParseForm error
# where the handler parses its form first (src/http/form.ts), the answer as without the pair elsewhere.
# test/golden/raw/forms.json: urlencoded POST bodies, which Go's ParseForm reads into the same form, ahead of the query.
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

// A urlencoded body is part of the form on the routes that parse it (POST, PUT, PATCH); its values come first.
const FORM = 'application/x-www-form-urlencoded';
const FORMS = [
  { name: 'a signal in a form body', target: '/v1.24/containers/nonexist/kill', contentType: FORM, body: 'signal=BOGUS' },
  { name: 'the body comes before the query', target: '/v1.24/containers/nonexist/kill?signal=BOGUS3', contentType: FORM, body: 'signal=BOGUS2' },
  { name: 'an invalid escape in the body', target: '/v1.24/containers/nonexist/kill', contentType: FORM, body: 'signal=%ZZ' },
  { name: 'an invalid escape in the query beside a body', target: '/v1.24/containers/nonexist/kill?signal=%ZZ', contentType: FORM, body: 'signal=BOGUS2' },
  { name: 'an escape error in the body comes before one in the query', target: '/v1.24/containers/nonexist/kill?x=1;y=2', contentType: FORM, body: 'signal=%YY' },
  { name: 'a semicolon in the body', target: '/v1.24/containers/nonexist/kill?signal=BOGUS3', contentType: FORM, body: 'x=1;y=2' },
  { name: 'the media type is case-insensitive, its parameters ignored', target: '/v1.24/containers/nonexist/kill', contentType: 'Application/X-WWW-Form-Urlencoded; charset=utf-8', body: 'signal=BOGUS4' },
  { name: 'an escaped value in the body', target: '/v1.24/containers/nonexist/kill', contentType: FORM, body: 'signal=SIG%2BX+Y' },
  { name: 'another content type: the body is not the form', target: '/v1.24/containers/nonexist/kill', contentType: 'text/plain', body: 'signal=BOGUS' },
  { name: 'pause parses its form as well', target: '/v1.24/containers/nonexist/pause', contentType: FORM, body: 'signal=%ZZ' },
  { name: 'a JSON route given a form body', target: '/v1.24/containers/create', contentType: FORM, body: '{"Image":"busybox"}' },
  { name: 'a form body over 10 MiB', target: '/v1.24/containers/nonexist/kill?signal=BOGUS5', contentType: FORM, bodyRepeat: { text: 'a', count: 11000000 } },
].map((r) => ({ ...r, method: 'POST' }));

function bodyOf(r) {
  return r.bodyRepeat ? r.bodyRepeat.text.repeat(r.bodyRepeat.count) : r.body;
}

function raw(target, r = {}) {
  return new Promise((resolve, reject) => {
    const c = net.connect(sock);
    const chunks = [];
    c.on('data', (d) => chunks.push(d));
    // (the reference stops reading a form body over 10 MiB, answers and closes: the rest of the write fails)
    c.on('error', (e) => (e.code === 'EPIPE' || e.code === 'ECONNRESET' ? undefined : reject(e)));
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
    const body = bodyOf(r);
    if (body === undefined) c.write(`GET ${target} HTTP/1.1\r\nHost: docker\r\n\r\n`);
    else c.write(`${r.method} ${target} HTTP/1.1\r\nHost: docker\r\nContent-Type: ${r.contentType}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  });
}

(async () => {
  const answers = [];
  for (const r of REQUESTS) answers.push({ name: r.name, request: { method: 'GET', target: r.target }, ...(await raw(r.target)) });
  const doc = { engine: 'Docker Engine 20.10 (scripts/capture-golden-raw.sh)', capturedAt: new Date().toISOString(), answers };
  fs.writeFileSync(path.join(out, 'escapes.json'), JSON.stringify(doc, null, 2) + '\n');
  const forms = [];
  for (const r of FORMS) {
    const { name, method, target, contentType, body, bodyRepeat } = r;
    forms.push({ name, request: { method, target, contentType, ...(bodyRepeat ? { bodyRepeat } : { body }) }, ...(await raw(target, r)) });
  }
  const formDoc = { engine: 'Docker Engine 20.10 (scripts/capture-golden-raw.sh)', capturedAt: new Date().toISOString(), answers: forms };
  fs.writeFileSync(path.join(out, 'forms.json'), JSON.stringify(formDoc, null, 2) + '\n');
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
EOF
