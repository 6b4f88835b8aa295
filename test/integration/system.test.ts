import { startTestBerth, TestBerth } from '../helpers/berth';

let b: TestBerth;
beforeAll(async () => {
  b = await startTestBerth();
});
afterAll(async () => {
  await b.close();
});

describe('system endpoints against real containerd', () => {
  test('GET /_ping answers OK with the engine headers', async () => {
    const r = await b.request('GET', '/_ping');
    expect(r.status).toBe(200);
    expect(r.text).toBe('OK');
    expect(r.headers['api-version']).toBe('1.24');
    expect(r.headers['ostype']).toBe('linux');
    expect(r.headers['docker-experimental']).toBe('false');
    expect(r.headers['content-type']).toBe('text/plain; charset=utf-8');
  });

  test('GET /version reports berth and API 1.24 at every version', async () => {
    for (const v of ['1.18', '1.19', '1.20', '1.21', '1.22', '1.23', '1.24']) {
      const r = await b.request('GET', `/v${v}/version`);
      expect(r.status).toBe(200);
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.text.endsWith('}\n')).toBe(true);
      const j = r.json();
      expect(j.ApiVersion).toBe('1.24');
      expect(j.Os).toBe('linux');
      for (const k of ['Version', 'GitCommit', 'GoVersion', 'Arch', 'KernelVersion', 'BuildTime']) expect(typeof j[k]).toBe('string');
      expect(j.Experimental).toBe(false);
    }
  });

  test('GET /info has real numbers', async () => {
    const j = (await b.request('GET', '/v1.24/info')).json();
    expect(j.NCPU).toBeGreaterThan(0);
    expect(j.MemTotal).toBeGreaterThan(0);
    expect(j.Containers).toBe(0);
    expect(j.ExecutionDriver).toMatch(/^containerd \S+, runc \S+$/);
    expect(j.ExecutionDriver).not.toMatch(/containerd ,/);
    expect(j.SystemTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    expect(j.Swarm.LocalNodeState).toBe('inactive');
    // The reference sends the Swarm section at every version (the spec's info list is silent on it).
    const old = (await b.request('GET', '/v1.22/info')).json();
    expect(old.Swarm.LocalNodeState).toBe('inactive');
  });

  test('versions outside 1.18–1.24 get 400 with the engine message', async () => {
    const tooNew = await b.request('GET', '/v1.99/version');
    expect(tooNew.status).toBe(400);
    expect(tooNew.json()).toEqual({ message: 'client version 1.99 is too new. Maximum supported API version is 1.24' });
    const tooOld = await b.request('GET', '/v1.17/version');
    expect(tooOld.status).toBe(400);
    expect(tooOld.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(tooOld.text).toBe('client version 1.17 is too old. Minimum supported API version is 1.18, please upgrade your client to a newer version\n');
  });

  test('errors are plain text up to 1.23 and JSON from 1.24; unknown routes get page not found', async () => {
    const t = await b.request('GET', '/v1.23/swarm');
    expect(t.status).toBe(406);
    expect(t.headers['content-type']).toBe('text/plain; charset=utf-8');
    const j = await b.request('GET', '/v1.24/swarm');
    expect(j.status).toBe(406);
    expect(j.json().message).toMatch(/not a swarm manager/);
    const nf = await b.request('GET', '/v1.24/nosuch');
    expect(nf.status).toBe(404);
    expect(nf.text).toBe('{"message":"page not found"}\n');
    expect(nf.headers['api-version']).toBeUndefined();
  });

  test('plugins are an empty list; leave outside a swarm is 503 as the reference answers', async () => {
    expect((await b.request('GET', '/v1.24/plugins')).json()).toEqual([]);
    expect((await b.request('POST', '/v1.24/swarm/leave')).status).toBe(503);
  });

  test('the docker CLI negotiates and prints version and info', async () => {
    const v = await b.docker(['version', '--format', '{{.Server.APIVersion}}']);
    expect(v.stdout.trim()).toBe('1.24');
    const pinned = await b.docker(['version', '--format', '{{.Server.APIVersion}}'], { apiVersion: '1.24' });
    expect(pinned.code).toBe(0);
    const info = await b.docker(['info'], { apiVersion: '1.24' });
    expect(info.code).toBe(0);
    expect(info.stdout).toMatch(/Server Version: /);
  });
});
