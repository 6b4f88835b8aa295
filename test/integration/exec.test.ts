import * as crypto from 'node:crypto';
import * as net from 'node:net';
import { startTestBerth, TestBerth } from '../helpers/berth';
import { loadBusybox } from '../helpers/busybox-image';
import { frames } from '../helpers/frames';

let b: TestBerth;
let cid: string;
beforeAll(async () => {
  b = await startTestBerth();
  await loadBusybox(b);
  cid = (await b.request('POST', '/v1.24/containers/create?name=ex', { body: { Image: 'busybox', Cmd: ['sleep', '1000'] } })).json().Id;
  await b.request('POST', `/v1.24/containers/${cid}/start`);
});
afterAll(async () => {
  await b.close();
});

describe('exec against real containerd', () => {
  test('create, start (framed output), inspect per version, exit code, ExecIDs', async () => {
    const c = await b.request('POST', '/v1.24/containers/ex/exec', { body: { Cmd: ['sh', '-c', 'echo out; echo err >&2; exit 3'], AttachStdout: true, AttachStderr: true } });
    expect(c.status).toBe(201);
    const id = c.json().Id;
    const before = (await b.request('GET', `/v1.24/exec/${id}/json`)).json();
    expect(before).toEqual(expect.objectContaining({ ID: id, Running: false, ExitCode: null, ContainerID: cid, OpenStdout: true }));
    expect(before.ProcessConfig).toEqual({ tty: false, entrypoint: 'sh', arguments: ['-c', 'echo out; echo err >&2; exit 3'], privileged: false });
    const s = await b.request('POST', `/v1.24/exec/${id}/start`, { body: { Detach: false } });
    expect(s.status).toBe(200);
    const got: string[] = [];
    for (let i = 0; i < s.body.length; ) {
      const len = s.body.readUInt32BE(i + 4);
      got.push(`${s.body[i]}:${s.body.subarray(i + 8, i + 8 + len).toString()}`);
      i += 8 + len;
    }
    expect(got.sort()).toEqual(['1:out\n', '2:err\n']);
    const after = (await b.request('GET', `/v1.24/exec/${id}/json`)).json();
    expect(after).toEqual(expect.objectContaining({ Running: false, ExitCode: 3 }));
    const v20 = await b.request('GET', `/v1.20/exec/${id}/json`);
    expect(v20.headers['content-type']).toBe('plain/text');
    expect(v20.json().Container.Id).toBe(cid);
    // like the reference, a finished exec leaves the container's ExecIDs (it stays inspectable by id)
    expect((await b.request('GET', '/v1.24/containers/ex/json')).json().ExecIDs).toBeNull();
    // as the reference: an attached second start is told in the stream, a detached one is a 409
    const again = await b.request('POST', `/v1.24/exec/${id}/start`, { body: { Detach: false } });
    expect(again.status).toBe(200);
    const msg = Buffer.from(`Error: Exec command ${id} has already run\r\n`);
    expect(again.body).toEqual(Buffer.concat([Buffer.from([1, 0, 0, 0, 0, 0, 0, msg.length]), msg]));
    const detached = await b.request('POST', `/v1.24/exec/${id}/start`, { body: { Detach: true } });
    expect(detached.status).toBe(409);
    expect(detached.json().message).toBe(`Error: Exec command ${id} has already run`);
    const old = await b.request('POST', `/v1.18/exec/${id}/start`, { body: { Detach: true } });
    expect([old.status, old.headers['content-type'], old.text]).toEqual([409, 'text/plain; charset=utf-8', `Error: Exec command ${id} has already run\n`]);
  });

  test("the reference's answers: a string Cmd is 400; a missing binary is 400 detached, in the stream attached (exit 126); the start request's Tty decides the framing", async () => {
    for (const v of ['1.18', '1.24']) {
      const r = await b.request('POST', `/v${v}/containers/ex/exec`, { body: { Cmd: 'echo hi', AttachStdout: true } });
      expect(r.status).toBe(400);
      expect(r.text).toContain('json: cannot unmarshal string into Go struct field ExecConfig.Cmd of type []string');
    }
    const runc = 'OCI runtime exec failed: exec failed: unable to start container process: exec: "/nope": stat /nope: no such file or directory: unknown';
    const d = (await b.request('POST', '/v1.24/containers/ex/exec', { body: { Cmd: ['/nope'] } })).json().Id;
    const ds = await b.request('POST', `/v1.24/exec/${d}/start`, { body: { Detach: true } });
    expect([ds.status, ds.json().message]).toEqual([400, runc]);
    expect((await b.request('GET', `/v1.24/exec/${d}/json`)).json().ExitCode).toBe(126);
    const a = (await b.request('POST', '/v1.24/containers/ex/exec', { body: { Cmd: ['/nope'], Tty: true, AttachStdout: true } })).json().Id;
    const as = await b.request('POST', `/v1.24/exec/${a}/start`, { body: { Tty: true } });
    expect([as.status, as.headers['content-type'], as.text]).toEqual([200, 'application/vnd.docker.raw-stream', runc + '\r\n']);
    expect((await b.request('GET', `/v1.24/exec/${a}/json`)).json()).toEqual(expect.objectContaining({ Running: false, ExitCode: 126 }));
    // a TTY exec started with Tty false (docker-py's default) is framed, as the reference frames it
    const t = (await b.request('POST', '/v1.24/containers/ex/exec', { body: { Cmd: ['echo', 'hi'], Tty: true, AttachStdout: true } })).json().Id;
    const ts = await b.request('POST', `/v1.24/exec/${t}/start`, { body: { Tty: false } });
    // how the pty's output falls into reads (one frame or several) is the kernel's choice, for the reference too
    const got = frames(ts.body);
    expect(got.map((f) => f.stream)).toEqual(got.map(() => 1));
    expect(Buffer.concat(got.map((f) => f.data)).toString()).toBe('hi\r\n');
  });

  test('a hijacked start carrying a body (Content-Length or chunked): the body is the request itself, only what follows is stdin', async () => {
    // the client's half-close at once (it may come while the exec is starting: `echo x | docker exec -i`) or later;
    // six times each, as the shim's stdin reader and the 'end' event both raced the start once
    const cases = Array.from({ length: 24 }, (_, i) => ({ chunked: i % 2 === 1, endAfter: i % 4 < 2 ? 0 : 300 }));
    for (const { chunked, endAfter } of cases) {
      const id = (await b.request('POST', '/v1.24/containers/ex/exec', { body: { Cmd: ['cat'], AttachStdin: true, AttachStdout: true } })).json().Id;
      const body = '{"Detach":false,"Tty":true}';
      const framing = chunked ? `Transfer-Encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n` : `Content-Length: ${body.length}\r\n\r\n${body}`;
      const got = await new Promise<string>((resolve, reject) => {
        const s = net.connect(b.socket, () => {
          s.write(`POST /v1.24/exec/${id}/start HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n${framing}stdin-bytes\n`);
          if (endAfter) setTimeout(() => s.end(), endAfter);
          else s.end();
        });
        let d = '';
        s.on('data', (c) => (d += c));
        s.on('end', () => resolve(d));
        s.on('error', reject);
      });
      expect(got.split('\r\n\r\n')[0]).toMatch(/^HTTP\/1.1 101 UPGRADED/);
      expect(got.split('\r\n\r\n').slice(1).join('\r\n\r\n')).toBe('stdin-bytes\n');
    }
  });

  test("docker-py's start: the head and the body in two writes, stdin after the answer; a TTY detaches on ctrl-p ctrl-q", async () => {
    // exactly as docker-py writes it (http.client sends the head, then the body): the body comes in a read of its own
    const start = (id: string, body: string, stdin: Buffer[], endAfter: boolean) =>
      new Promise<string>((resolve, reject) => {
        const s = net.connect(b.socket, () => {
          s.write(`POST /v1.24/exec/${id}/start HTTP/1.1\r\nHost: localhost\r\nUser-Agent: docker-sdk-python/7.1.0\r\nAccept-Encoding: gzip, deflate\r\nAccept: */*\r\nConnection: Upgrade\r\nUpgrade: tcp\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
          setTimeout(() => s.write(body), 150);
        });
        let d = '';
        let sent = false;
        s.on('data', (c) => {
          d += c;
          if (sent || !d.includes('\r\n\r\n')) return;
          sent = true;
          void (async () => {
            for (const x of stdin) {
              await new Promise((r) => setTimeout(r, 200));
              s.write(x);
            }
            if (endAfter) s.end();
          })();
        });
        s.on('end', () => resolve(d.split('\r\n\r\n').slice(1).join('\r\n\r\n')));
        s.on('error', reject);
      });
    for (let i = 0; i < 3; i++) {
      const plain = (await b.request('POST', '/v1.24/containers/ex/exec', { body: { Cmd: ['cat'], AttachStdin: true, AttachStdout: true } })).json().Id;
      const out = await start(plain, '{"Detach":false,"Tty":false}', [Buffer.from('later-bytes\n')], true);
      expect(Buffer.concat(frames(Buffer.from(out, 'latin1')).map((f) => f.data)).toString()).toBe('later-bytes\n');
      // the server ends the stream at the detach keys (the client never half-closes here)
      const tty = (await b.request('POST', '/v1.24/containers/ex/exec', { body: { Cmd: ['cat'], AttachStdin: true, AttachStdout: true, Tty: true } })).json().Id;
      await start(tty, '{"Detach":false,"Tty":true}', [Buffer.from([0x10]), Buffer.from([0x11])], false);
      expect((await b.request('GET', `/v1.24/exec/${tty}/json`)).json().Running).toBe(true);
      // docker-py sends the config file's detach keys as {"detachKeys": …}: Go's decoder takes the name in any case
      const own = (await b.request('POST', '/v1.24/containers/ex/exec', { body: { AttachStdin: true, AttachStdout: true, AttachStderr: false, Cmd: ['cat'], Privileged: false, Tty: true, User: '', detachKeys: 'ctrl-p' } })).json().Id;
      expect((await b.request('GET', `/v1.24/exec/${own}/json`)).json().DetachKeys).toBe('ctrl-p');
      await start(own, '{"Detach":false,"Tty":true}', [Buffer.from([0x10])], false);
    }
  });

  test('attach with stdin: a client that half-closes at once (StdinOnce) still has its bytes read and its EOF seen', async () => {
    for (let i = 0; i < 6; i++) {
      const id = (await b.request('POST', '/v1.24/containers/create', { body: { Image: 'busybox', Cmd: ['cat'], OpenStdin: true, StdinOnce: true, AttachStdin: true, AttachStdout: true } })).json().Id;
      const got = await new Promise<string>((resolve, reject) => {
        const s = net.connect(b.socket, () => {
          s.write(`POST /v1.24/containers/${id}/attach?stream=1&stdin=1&stdout=1 HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n`);
          s.once('data', () => {
            void b.request('POST', `/v1.24/containers/${id}/start`).then(() => {
              s.write('attached-bytes\n');
              s.end();
            }, reject);
          });
        });
        let d = '';
        s.on('data', (c) => (d += c));
        s.on('end', () => resolve(d));
        s.on('error', reject);
      });
      const out = frames(Buffer.from(got.split('\r\n\r\n').slice(1).join('\r\n\r\n'), 'latin1'));
      expect(Buffer.concat(out.map((f) => f.data)).toString()).toBe('attached-bytes\n');
      expect((await b.request('POST', `/v1.24/containers/${id}/wait`)).json().StatusCode).toBe(0);
      await b.request('DELETE', `/v1.24/containers/${id}?force=1`);
    }
  });

  test('404s and 409s', async () => {
    expect((await b.request('GET', '/v1.24/exec/nope/json')).json()).toEqual({ message: 'No such exec instance: nope' });
    expect((await b.request('POST', '/v1.24/containers/nope/exec', { body: { Cmd: ['true'] } })).status).toBe(404);
    await b.request('POST', '/v1.24/containers/ex/pause');
    const paused = await b.request('POST', '/v1.24/containers/ex/exec', { body: { Cmd: ['true'] } });
    expect(paused.status).toBe(409);
    await b.request('POST', '/v1.24/containers/ex/unpause');
    const stopped = (await b.request('POST', '/v1.24/containers/create', { body: { Image: 'busybox', Cmd: ['true'] } })).json().Id;
    expect((await b.request('POST', `/v1.24/containers/${stopped}/exec`, { body: { Cmd: ['true'] } })).json().message).toBe(`Container ${stopped} is not running`);
  });

  test('the docker CLI: exec, -u in all forms, -i with 1 MB of stdin byte-exact, -d', async () => {
    expect((await b.docker(['exec', 'ex', 'echo', 'hi'], { apiVersion: '1.24' })).stdout).toBe('hi\n');
    expect((await b.docker(['exec', 'ex', 'sh', '-c', 'exit 9'], { apiVersion: '1.24' })).code).toBe(9);
    expect((await b.docker(['exec', '-u', 'app', 'ex', 'id', '-u'], { apiVersion: '1.24' })).stdout).toBe('1000\n');
    expect((await b.docker(['exec', '-u', 'app:staff', 'ex', 'id', '-g'], { apiVersion: '1.24' })).stdout).toBe('50\n');
    expect((await b.docker(['exec', '-u', '4242', 'ex', 'id', '-u'], { apiVersion: '1.24' })).stdout).toBe('4242\n');
    expect((await b.docker(['exec', '-u', '4242:4343', 'ex', 'id', '-g'], { apiVersion: '1.24' })).stdout).toBe('4343\n');
    const data = crypto.randomBytes(1 << 20).toString('base64');
    const piped = await b.docker(['exec', '-i', 'ex', 'cat'], { apiVersion: '1.24', input: data });
    expect(piped.stdout).toBe(data);
    expect((await b.docker(['exec', '-d', 'ex', 'sleep', '3'], { apiVersion: '1.24' })).code).toBe(0);
    const top = (await b.request('GET', '/v1.24/containers/ex/top')).json();
    expect(top.Processes.some((p: string[]) => p.join(' ').includes('sleep 3'))).toBe(true);
    // a detached exec has no stdio FIFOs (its output goes nowhere, as with the engine): writing must still work
    expect((await b.docker(['exec', '-d', 'ex', 'sh', '-c', 'echo lost; echo lost >&2; echo done > /tmp/detached'], { apiVersion: '1.24' })).code).toBe(0);
    await new Promise((r) => setTimeout(r, 300));
    expect((await b.docker(['exec', 'ex', 'cat', '/tmp/detached'], { apiVersion: '1.24' })).stdout).toBe('done\n');
  });
});
