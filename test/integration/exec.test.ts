import * as crypto from 'node:crypto';
import { startTestBerth, TestBerth } from '../helpers/berth';
import { loadBusybox } from '../helpers/busybox-image';

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
    const again = await b.request('POST', `/v1.24/exec/${id}/start`, { body: { Detach: false } });
    expect(again.status).toBe(409);
    expect(again.json().message).toBe(`Exec command ${id} has already run`);
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
