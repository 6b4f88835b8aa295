// Streams with the docker CLI: 10 MB through `run -i … cat` byte-exact on stdout and on stderr, `run -t` and
// `exec -it` under a pseudo-terminal (script) with the terminal size seen by `stty size`, and detaching from
// `docker attach` with detach keys leaving the container running.
import { spawn } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as path from 'node:path';
import { followLogsBody, type TestBerth } from '../helpers/berth';
import { berthWithBusybox } from '../helpers/suite';
import { FrameDecoder } from '../../src/http/stream';

const berth = berthWithBusybox();
let b: TestBerth;
beforeAll(() => {
  b = berth();
});

const sha = (x: Buffer) => crypto.createHash('sha256').update(x).digest('hex');

/** The docker CLI with separate binary stdout and stderr. */
function dockerRaw(args: string[], input?: Buffer): Promise<{ code: number; stdout: Buffer; stderr: Buffer }> {
  return new Promise((resolve) => {
    const env = { ...process.env, DOCKER_HOST: `unix://${b.socket}`, DOCKER_API_VERSION: '1.24', DOCKER_CONFIG: path.join(b.dir, 'docker-config') };
    const child = spawn('docker', args, { env });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('close', (code) => resolve({ code: code ?? 1, stdout: Buffer.concat(out), stderr: Buffer.concat(err) }));
    child.stdin.end(input);
  });
}

/** A shell command under a pseudo-terminal of the given size (util-linux `script`); output as text. */
function underPty(cmd: string, rows: number, cols: number, feeds: { after: number; data: string }[] = [], timeoutMs = 30_000): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const env = { ...process.env, DOCKER_HOST: `unix://${b.socket}`, DOCKER_API_VERSION: '1.24', DOCKER_CONFIG: path.join(b.dir, 'docker-config'), TERM: 'xterm' };
    const child = spawn('script', ['-qfec', `stty rows ${rows} cols ${cols}; ${cmd}`, '/dev/null'], { env });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    for (const f of feeds) setTimeout(() => child.stdin.write(f.data), f.after);
    const t = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(t);
      resolve({ code: code ?? 1, out });
    });
  });
}

test('docker run -i: 10 MB of random bytes through cat come back byte-exact, on stdout and on stderr separately', async () => {
  const data = crypto.randomBytes(10 << 20);
  const out = await dockerRaw(['run', '-i', '--rm', '--net', 'none', 'busybox', 'cat'], data);
  expect(out.code).toBe(0);
  expect(out.stdout.length).toBe(data.length);
  expect(sha(out.stdout)).toBe(sha(data));
  const err = await dockerRaw(['run', '-i', '--rm', '--net', 'none', 'busybox', 'sh', '-c', 'cat >&2'], data);
  expect(err.code).toBe(0);
  expect(err.stdout.length).toBe(0);
  expect(sha(err.stderr)).toBe(sha(data));
});

// (busybox-static's `stty size` fails on any pty, under the reference too: the size is checked where the CLI
// sends it, the resize call and its event, and the process's stdio is the terminal)
test('docker run -t and docker exec -it under a pseudo-terminal: the process gets a terminal, the CLI its size', async () => {
  const since = Math.floor(Date.now() / 1000) - 1;
  const run = await underPty('docker run -t --name tty1 --net none busybox sh -c "tty; sleep 0.5"', 37, 111);
  expect(run.out).toMatch(/\/dev\/pts\/\d+/);
  const ev = (await b.request('GET', `/v1.24/events?since=${since}&until=${Math.floor(Date.now() / 1000) + 1}&filters=${encodeURIComponent('{"event":["resize"],"container":["tty1"]}')}`)).text.trim().split('\n').map((l) => JSON.parse(l));
  expect(ev[0].Actor.Attributes).toMatchObject({ height: '37', width: '111' });
  await b.docker(['rm', '-f', 'tty1']);
  expect((await b.docker(['run', '-d', '--name', 'tty', '--net', 'none', '-it', 'busybox', 'sh'], { apiVersion: '1.24' })).code).toBe(0);
  const ex = await underPty('docker exec -it tty sh -c "tty; test -t 0 && echo stdin-is-a-tty"', 25, 90);
  expect(ex.out).toMatch(/\/dev\/pts\/\d+/);
  expect(ex.out).toContain('stdin-is-a-tty');
  await b.docker(['rm', '-f', 'tty']);
});

test('docker attach with --detach-keys: the keys detach and the container keeps running', async () => {
  expect((await b.docker(['run', '-d', '--name', 'att', '--net', 'none', '-it', 'busybox', 'sh'], { apiVersion: '1.24' })).code).toBe(0);
  // type a command, see its output, then ctrl-x x
  const r = await underPty('docker attach --detach-keys ctrl-x,x att', 24, 80, [
    { after: 1500, data: 'echo attached-$((40+2))\r' },
    { after: 2500, data: '\x18x' },
  ]);
  expect(r.out).toContain('attached-42');
  expect(r.out).toContain('read escape sequence'); // the CLI's own words when it detaches
  const st = (await b.request('GET', '/v1.24/containers/att/json')).json().State;
  expect(st.Running).toBe(true);
  await b.docker(['rm', '-f', 'att']);
});

test('docker logs -f --tail 5 --since … -t follows to the end; a big log (the reader thread) comes back byte-exact', async () => {
  const since = Math.floor(Date.now() / 1000) - 60;
  const script = 'i=1; while [ $i -le 10 ]; do echo line$i; i=$((i+1)); done; sleep 2; echo after >&2; sleep 1; echo last';
  expect((await b.docker(['run', '-d', '--name', 'lf', '--net', 'none', 'busybox', 'sh', '-c', script], { apiVersion: '1.24' })).code).toBe(0);
  await new Promise((r) => setTimeout(r, 700));
  const t0 = Date.now();
  const f = await dockerRaw(['logs', '-f', '--tail', '5', '--since', String(since), '-t', 'lf']);
  expect(Date.now() - t0).toBeGreaterThan(1500); // it followed until the container stopped
  const ts = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z /;
  const out = f.stdout.toString().trim().split('\n');
  expect(out.map((l) => l.replace(ts, ''))).toEqual(['line6', 'line7', 'line8', 'line9', 'line10', 'last']);
  expect(out.every((l) => ts.test(l))).toBe(true);
  expect(f.stderr.toString().replace(ts, '')).toBe('after\n');
  await b.docker(['rm', '-f', 'lf']);

  // 12 MB of lines: over the size where logs are decoded on the reader thread
  const line = 'abcdefghijklmnopqrstuvwxyz<>&"\\0123456789';
  expect((await b.docker(['run', '--name', 'big', '--net', 'none', 'busybox', 'sh', '-c', `yes '${line}' | head -c 12000000`], { apiVersion: '1.24' })).code).toBe(0);
  const want = Buffer.from(`${line}\n`.repeat(Math.ceil(12_000_000 / (line.length + 1)))).subarray(0, 12_000_000);
  const got = await dockerRaw(['logs', 'big']);
  expect(got.stdout.length).toBe(want.length);
  expect(sha(got.stdout)).toBe(sha(want));
  await b.docker(['rm', '-f', 'big']);
});

test('logs -f while the container writes: every line once and in order, for a fast reader and for one that stalls past the live queue (back to the file)', async () => {
  const N = 4_000_000; // ~86 MB in all: a reader stalled for 2.5 s falls more than the live queue (64 MiB) behind
  const id = (await b.request('POST', '/v1.24/containers/create', { body: { Image: 'busybox', Cmd: ['sh', '-c', `sleep 0.3; seq 1 ${N}; seq 1 ${N} | sed s/^/again-/`], HostConfig: { NetworkMode: 'none' } } })).json().Id;
  expect((await b.request('POST', `/v1.24/containers/${id}/start`)).status).toBe(204);
  const read = (stallMs: number) => followLogsBody(b.socket, id, stallMs);
  const [fast, slow] = await Promise.all([read(0), read(2500)]);
  const want = Array.from({ length: N }, (_, i) => `${i + 1}\n`).join('') + Array.from({ length: N }, (_, i) => `again-${i + 1}\n`).join('');
  for (const got of [fast, slow]) {
    // 8 million frames (one per line, as the engine's): demultiplexed in place, not a Buffer per frame
    const payload = Buffer.allocUnsafe(got.length);
    let at = 0;
    for (let i = 0; i + 8 <= got.length; ) {
      const n = got.readUInt32BE(i + 4);
      got.copy(payload, at, i + 8, i + 8 + n);
      at += n;
      i += 8 + n;
    }
    const text = payload.subarray(0, at).toString();
    expect(text.length).toBe(want.length);
    expect(text === want).toBe(true);
  }
  await b.request('DELETE', `/v1.24/containers/${id}?force=1`);
}, 120_000);

test('logs -f (live) gives exactly what a later read of the file gives: TTY and not, with timestamps and details', async () => {
  for (const tty of [false, true]) {
    const name = tty ? 'livetty' : 'livenotty';
    const script = 'i=1; while [ $i -le 20 ]; do echo "l$i <&> \\"q\\""; printf "part-$i "; i=$((i+1)); sleep 0.05; done; echo err >&2';
    expect((await b.docker(['run', '-d', ...(tty ? ['-t'] : []), '--name', name, '--net', 'none', 'busybox', 'sh', '-c', script], { apiVersion: '1.24' })).code).toBe(0);
    const q = 'stdout=1&stderr=1&timestamps=1&details=1';
    const followed = await b.request('GET', `/v1.24/containers/${name}/logs?follow=1&${q}`);
    const after = await b.request('GET', `/v1.24/containers/${name}/logs?${q}`);
    // compare the demultiplexed bytes (partial lines may be cut differently)
    const demux = (x: Buffer) => (tty ? [x.toString()] : [1, 2].map((s) => Buffer.concat(new FrameDecoder().push(x).filter((f) => f.stream === s).map((f) => f.payload)).toString()));
    expect(demux(followed.body)).toEqual(demux(after.body));
    expect(demux(after.body)[0]).toMatch(/^\S+Z  l1 <&> "q"\r?\n/);
    await b.docker(['rm', '-f', name]);
  }
});

test('logs are framed an entry to a frame, as the engine frames them (docker-py streams a frame as a line): read back and followed live', async () => {
  // one write of two lines: one read of the capture, one live append, one chunk of the file
  const script = 'sleep 1; printf "hello\\nworld\\n"; printf "part"; sleep 1';
  expect((await b.docker(['run', '-d', '--name', 'perline', '--net', 'none', 'busybox', 'sh', '-c', script], { apiVersion: '1.24' })).code).toBe(0);
  const frames = (x: Buffer) => new FrameDecoder().push(x).map((f) => `${f.stream}:${f.payload.toString()}`);
  const followed = await b.request('GET', '/v1.24/containers/perline/logs?follow=1&stdout=1&stderr=1');
  expect(frames(followed.body)).toEqual(['1:hello\n', '1:world\n', '1:part']);
  const after = await b.request('GET', '/v1.24/containers/perline/logs?stdout=1&stderr=1');
  expect(frames(after.body)).toEqual(['1:hello\n', '1:world\n', '1:part']);
  await b.docker(['rm', '-f', 'perline']);
});

describe('a logs read right after the start', () => {
  // docker-py's own tests start a container and read its logs at once (test_build_in_context_dockerfile): the
  // reference's slower start leaves its output in the log by then. berth's read waits a moment after a start for the
  // first output, and reads what the FIFO holds before it answers.
  test('has the output of a short process, start after start', async () => {
    const short: string[] = [];
    for (let i = 0; i < 20; i++) {
      const id = (await b.request('POST', '/v1.24/containers/create', { body: { Image: 'busybox', Cmd: ['echo', `hi ${i}`] } })).json().Id as string;
      expect((await b.request('POST', `/v1.24/containers/${id}/start`)).status).toBe(204);
      const logs = await b.request('GET', `/v1.24/containers/${id}/logs?stdout=1`);
      if (!logs.body.subarray(8).toString().includes(`hi ${i}\n`)) short.push(`run ${i}: ${JSON.stringify(logs.body.toString())}`);
      await b.request('DELETE', `/v1.24/containers/${id}?force=1`);
    }
    expect(short).toEqual([]);
  });
});
