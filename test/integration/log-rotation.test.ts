// json-file log options against real containerd: rotation files as the reference engine leaves them (captured from
// Docker Engine 20.10.24 with the same container: 100 numbered lines, max-size 1k, max-file 3 kept lines 66-100 as
// `.2` 66-78, `.1` 79-91, current 92-100, with 9-digit times), reads and follows across rotations, attributes, and the options' errors.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { followLogsBody, type TestBerth } from '../helpers/berth';
import { berthWithBusybox } from '../helpers/suite';
import { FrameDecoder } from '../../src/http/stream';

const berth = berthWithBusybox();
let b: TestBerth;
beforeAll(() => {
  b = berth();
});

const numbered = (n: number) => `i=1; while [ $i -le ${n} ]; do echo "line $i"; i=$((i+1)); done`;
const range = (a: number, z: number) => Array.from({ length: z - a + 1 }, (_, i) => `line ${a + i}`);
const text = (body: Buffer) => Buffer.concat(new FrameDecoder().push(body).map((f) => f.payload)).toString();
const lines = (body: Buffer) => text(body).split('\n').filter(Boolean);
const fileBody = (f: string) => (f.endsWith('.gz') ? zlib.gunzipSync(fs.readFileSync(f)) : fs.readFileSync(f));
const fileLines = (f: string) => fileBody(f).toString().split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { log: string }).log.trim());

async function run(name: string, config: Record<string, string>, cmd: string, extra: Record<string, unknown> = {}): Promise<{ id: string; logPath: string }> {
  const res = await b.request('POST', `/v1.24/containers/create?name=${name}`, {
    body: { Image: 'busybox', Cmd: ['sh', '-c', cmd], ...extra, HostConfig: { NetworkMode: 'none', LogConfig: { Type: 'json-file', Config: config } } },
  });
  expect(res.status).toBe(201);
  const id = res.json().Id as string;
  expect((await b.request('POST', `/v1.24/containers/${id}/start`)).status).toBe(204);
  return { id, logPath: (await b.request('GET', `/v1.24/containers/${id}/json`)).json().LogPath as string };
}

/** The engine's cut: a rotated file reached max-size with its last entry, not before it. */
function expectCut(f: string, max: number): void {
  const body = f.endsWith('.gz') ? zlib.gunzipSync(fs.readFileSync(f)) : fs.readFileSync(f);
  expect(body.length).toBeGreaterThanOrEqual(max);
  expect(body.lastIndexOf(0x0a, body.length - 2) + 1).toBeLessThan(max);
}

/** The kept lines, oldest first, as the reference keeps them: `.2` 66-78, `.1` 79-91, the current file 92-100. Its
 *  times have nine digits but for one line in ten (Go trims trailing zeros), which can move a cut by a line; berth's
 *  always have nine (the lines of one read share a time, and one ending in 00 moved every cut: 71-100 was kept). */
function expectKept(files: string[]): string[] {
  const layout = files.map((f) => `${path.basename(f)}: ${fileBody(f).length} bytes, ${fileLines(f).join(',')}; first entry ${fileBody(f).toString().split('\n')[0]}`).join('\n');
  expect([files.map(fileLines), layout]).toEqual([[range(66, 78), range(79, 91), range(92, 100)], layout]);
  return files.flatMap(fileLines);
}

const wait = async (id: string) => expect((await b.request('POST', `/v1.24/containers/${id}/wait`)).status).toBe(200);

test('max-size 1k, max-file 3: the files rotate as the reference engine\'s; logs returns the kept lines in order, tail works; rm removes every file', async () => {
  const { id, logPath } = await run('rot3', { 'max-size': '1k', 'max-file': '3' }, numbered(100));
  await wait(id);
  const base = path.basename(logPath);
  expect(fs.readdirSync(path.dirname(logPath)).filter((f) => f.startsWith(base)).sort()).toEqual([base, `${base}.1`, `${base}.2`]);
  for (const f of [`${logPath}.2`, `${logPath}.1`]) expectCut(f, 1000);
  const kept = expectKept([`${logPath}.2`, `${logPath}.1`, logPath]);
  expect(lines((await b.request('GET', `/v1.24/containers/${id}/logs?stdout=1&stderr=1`)).body)).toEqual(kept);
  expect(lines((await b.request('GET', `/v1.24/containers/${id}/logs?stdout=1&tail=15`)).body)).toEqual(range(86, 100));
  const ts = lines((await b.request('GET', `/v1.24/containers/${id}/logs?stdout=1&timestamps=1&tail=all`)).body);
  expect(ts.map((l) => l.replace(/^\S+ /, ''))).toEqual(kept);
  // the docker CLI against berth
  const cli = await b.docker(['logs', '--tail', '3', 'rot3'], { apiVersion: '1.24' });
  expect(cli.stdout.trim().split('\n')).toEqual(range(98, 100));
  expect((await b.request('DELETE', `/v1.24/containers/${id}`)).status).toBe(204);
  expect(fs.existsSync(path.dirname(logPath))).toBe(false);
});

test('compress: rotated files are gzipped (.1.gz, .2.gz, as the reference) and read decompressed; max-file 1 reads the current file only', async () => {
  const { id, logPath } = await run('rotgz', { 'max-size': '1k', 'max-file': '3', compress: 'true' }, numbered(100));
  await wait(id);
  const base = path.basename(logPath);
  const names = () => fs.readdirSync(path.dirname(logPath)).filter((f) => f.startsWith(base)).sort();
  // Compression runs in the background: wait (up to 5 s) for its end state, not for any three files (.1 and .2 may
  // still be plain, or a .gz being written beside its source, on a loaded machine).
  const want = [base, `${base}.1.gz`, `${base}.2.gz`];
  for (let i = 0; i < 50 && names().join() !== want.join(); i++) await new Promise((r) => setTimeout(r, 100));
  expect(names()).toEqual(want);
  for (const f of [`${logPath}.2.gz`, `${logPath}.1.gz`]) expectCut(f, 1000);
  const kept = expectKept([`${logPath}.2.gz`, `${logPath}.1.gz`, logPath]);
  expect(lines((await b.request('GET', `/v1.24/containers/${id}/logs?stdout=1&stderr=1`)).body)).toEqual(kept);
  await b.request('DELETE', `/v1.24/containers/${id}`);

  const one = await run('rot1', { 'max-size': '1k' }, numbered(100));
  await wait(one.id);
  expect(fs.existsSync(`${one.logPath}.1`)).toBe(true); // kept, not read: as the reference
  expectCut(`${one.logPath}.1`, 1000);
  expect(lines((await b.request('GET', `/v1.24/containers/${one.id}/logs?stdout=1&stderr=1`)).body)).toEqual(fileLines(one.logPath));
  expect(fileLines(one.logPath).slice(-1)).toEqual(['line 100']);
  await b.request('DELETE', `/v1.24/containers/${one.id}`);
});

test('a follow started before the output gets every line once, in order, across rotations (also with the rotated files deleted under it)', async () => {
  for (const cfg of [{ 'max-size': '1k', 'max-file': '200' }, { 'max-size': '1k', 'max-file': '2' }]) {
    const { id } = await run(`rotf${cfg['max-file']}`, cfg, `sleep 1; ${numbered(2000)}`);
    const f = await b.request('GET', `/v1.24/containers/${id}/logs?follow=1&stdout=1&stderr=1`);
    expect(lines(f.body)).toEqual(range(1, 2000));
    const later = lines((await b.request('GET', `/v1.24/containers/${id}/logs?stdout=1&stderr=1`)).body);
    expect(later).toEqual(cfg['max-file'] === '200' ? range(1, 2000) : range(2001 - later.length, 2000));
    await b.request('DELETE', `/v1.24/containers/${id}?force=1`);
  }
}, 60_000);

test('a follow that stalls past the live queue (64 MiB) goes back to the rotated files and still gets every line once', async () => {
  const N = 70_000; // ~70 MB of ~1000-byte lines, 8 MB files: the stalled reader's bytes are rotated away under it
  const pad = 'a'.repeat(990);
  const { id } = await run('rotslow', { 'max-size': '8m', 'max-file': '20' }, `sleep 0.3; seq 1 ${N} | sed 's/$/ ${pad}/'`);
  const read = (stallMs: number) => followLogsBody(b.socket, id, stallMs);
  const [fast, slow] = await Promise.all([read(0), read(3000)]);
  const want = Array.from({ length: N }, (_, i) => `${i + 1} ${pad}\n`).join('');
  for (const got of [fast, slow]) {
    const t = text(got);
    expect(t.length).toBe(want.length);
    expect(t === want).toBe(true);
  }
  await b.request('DELETE', `/v1.24/containers/${id}?force=1`);
}, 120_000);

test('a follow started late (from the rotated files, tail) then live until the end', async () => {
  const { id } = await run('rotlate', { 'max-size': '2k', 'max-file': '10' }, `${numbered(300)}; sleep 1.5; echo end`);
  await new Promise((r) => setTimeout(r, 700));
  const f = await b.request('GET', `/v1.24/containers/${id}/logs?follow=1&stdout=1&tail=120`);
  expect(lines(f.body)).toEqual([...range(181, 300), 'end']);
  await b.request('DELETE', `/v1.24/containers/${id}?force=1`);
});

test('labels, env and tag: entries carry attrs in the engine\'s layout; details prefixes them, live and from the file', async () => {
  const { id, logPath } = await run(
    'attrs1',
    { labels: 'com.b,com.a,missing', env: 'FOO,NOPE', 'env-regex': '^FOOD$', tag: '{{.Name}}/{{.ID}}' },
    'sleep 0.5; echo hello; echo err >&2',
    { Labels: { 'com.a': '1', 'com.b': 'x y', other: 'z' }, Env: ['FOO=bar', 'FOOD=pizza', 'XX=1'] },
  );
  const followed = await b.request('GET', `/v1.24/containers/${id}/logs?follow=1&stdout=1&stderr=1&details=1`);
  const first = fs.readFileSync(logPath, 'utf8').split('\n')[0];
  expect(first).toMatch(new RegExp(`^\\{"log":"(hello|err)\\\\n","stream":"std(out|err)","attrs":\\{"FOO":"bar","FOOD":"pizza","com.a":"1","com.b":"x y","tag":"attrs1/${id.slice(0, 12)}"\\},"time":"[^"]+"\\}$`));
  const prefix = `FOO=bar,FOOD=pizza,com.a=1,com.b=x+y,tag=attrs1%2F${id.slice(0, 12)} `;
  const after = await b.request('GET', `/v1.24/containers/${id}/logs?stdout=1&stderr=1&details=1`);
  for (const body of [followed.body, after.body]) {
    const frames = new FrameDecoder().push(body);
    expect(frames.filter((x) => x.stream === 1).map((x) => x.payload.toString()).join('')).toBe(`${prefix}hello\n`);
    expect(frames.filter((x) => x.stream === 2).map((x) => x.payload.toString()).join('')).toBe(`${prefix}err\n`);
  }
  await b.request('DELETE', `/v1.24/containers/${id}`);
});

test('option names are refused at create (400), values at start (500, the container stays created with ExitCode 128), as the reference', async () => {
  const create = (v: string, cfg: Record<string, string>) => b.request('POST', `/${v}/containers/create`, { body: { Image: 'busybox', Cmd: ['true'], HostConfig: { NetworkMode: 'none', LogConfig: { Type: 'json-file', Config: cfg } } } });
  const bad = await create('v1.24', { foo: 'bar' });
  expect([bad.status, bad.json()]).toEqual([400, { message: "unknown log opt 'foo' for json-file log driver" }]);
  const old = await create('v1.21', { foo: 'bar' });
  expect([old.status, old.headers['content-type'], old.text]).toEqual([400, 'text/plain; charset=utf-8', "unknown log opt 'foo' for json-file log driver\n"]);
  const mode = await create('v1.24', { 'max-buffer-size': '4m' });
  expect(mode.json()).toEqual({ message: "logger: max-buffer-size option is only supported with 'mode=non-blocking'" });
  for (const [cfg, msg] of [
    [{ 'max-size': 'abc' }, "invalid size: 'abc'"],
    [{ 'max-file': '0' }, 'max-file cannot be less than 1'],
    [{ compress: 'true' }, 'compress cannot be true when max-file is less than 2 or max-size is not set'],
  ] as [Record<string, string>, string][]) {
    const c = await create('v1.24', cfg);
    expect(c.status).toBe(201);
    const id = c.json().Id as string;
    const s = await b.request('POST', `/v1.24/containers/${id}/start`);
    expect([s.status, s.json()]).toEqual([500, { message: `failed to initialize logging driver: ${msg}` }]);
    const st = (await b.request('GET', `/v1.24/containers/${id}/json`)).json().State;
    expect([st.Status, st.ExitCode, st.Error]).toEqual(['created', 128, `failed to initialize logging driver: ${msg}`]);
    await b.request('DELETE', `/v1.24/containers/${id}`);
  }
  const ins = await create('v1.24', { 'max-size': '10m', 'max-file': '3' });
  expect((await b.request('GET', `/v1.24/containers/${ins.json().Id}/json`)).json().HostConfig.LogConfig).toEqual({ Type: 'json-file', Config: { 'max-size': '10m', 'max-file': '3' } });
  await b.request('DELETE', `/v1.24/containers/${ins.json().Id}`);
});
