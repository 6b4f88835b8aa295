// The plugin routes over a real socket with a fake backend: the spec's and the reference's forms, statuses, bodies.
import { notFound, systemError } from '../../../src/errors';
import { pluginRoutes, PluginsBackend } from '../../../src/handlers/plugins';
import type { PluginRecord } from '../../../src/types/plugin';
import { serveRoutes, Served } from '../../helpers/serve-routes';

const REC: PluginRecord = { Id: 'a'.repeat(64), Name: 'bfx', Tag: 'latest', Reference: 'r/x:latest', Config: { Interface: { Types: ['docker.volumedriver/1.0'], Socket: 's.sock' }, Entrypoint: ['/x'], Network: { Type: 'host' }, Env: [{ Name: 'A', Value: '1' }] }, ConfigDigest: 'sha256:c', Layers: [], Enabled: false };
const PRIV = [{ Name: 'network', Description: 'permissions to access a network', Value: ['host'] }];
const calls: string[] = [];
const backend: PluginsBackend = {
  list: () => [REC],
  find: (ref) => {
    if (ref === 'bfx' || ref === 'bfx:latest') return REC;
    throw notFound(`plugin "${ref}" not found`);
  },
  privileges: async (remote) => (calls.push(`privileges ${remote}`), PRIV),
  pull: async (remote, name, _creds, accepted, progress) => {
    calls.push(`pull ${remote} ${name} ${JSON.stringify(accepted)}`);
    if (remote === 'bad') throw systemError('invalid reference format');
    progress({ status: 'Pulling from x' });
    if (remote === 'late') throw systemError('incorrect privileges');
    return PRIV;
  },
  enable: async (ref) => void calls.push(`enable ${ref}`),
  disable: async (ref) => void calls.push(`disable ${ref}`),
  remove: async (ref) => void calls.push(`remove ${ref}`),
};

let s: Served;
beforeAll(async () => (s = await serveRoutes(pluginRoutes(backend))));
afterAll(() => s.close());

const req = (method: string, path: string, body?: string) => s.request(method, path, body, body ? { 'Content-Type': 'application/json' } : {});

describe('plugin routes', () => {
  test("list and inspect in the spec's shape; the reference's /json form; 404", async () => {
    const list = await req('GET', '/v1.24/plugins');
    expect(list.status).toBe(200);
    const p = JSON.parse(list.text)[0];
    expect(p).toMatchObject({ Id: REC.Id, Name: 'bfx', Tag: 'latest', Active: false, Config: { Env: ['A=1'], Mounts: [], Args: [], Devices: [] }, Manifest: { ManifestVersion: 'v0', Entrypoint: ['/x'], Network: { Type: 'host' } } });
    for (const path of ['/v1.24/plugins/bfx', '/v1.24/plugins/bfx:latest/json']) expect(JSON.parse((await req('GET', path)).text)).toEqual(p);
    expect(await req('GET', '/v1.24/plugins/nope')).toMatchObject({ status: 404, text: '{"message":"plugin \\"nope\\" not found"}\n' });
  });
  test('pull: the spec form answers the privileges, the reference form streams and reports late errors in the stream', async () => {
    expect(await req('POST', '/v1.24/plugins/pull?name=r/x')).toMatchObject({ status: 200, text: JSON.stringify(PRIV) + '\n' });
    expect(await req('POST', '/v1.24/plugins/pull?name=bad')).toMatchObject({ status: 500, text: '{"message":"invalid reference format"}\n' });
    expect(await req('POST', '/v1.24/plugins/pull')).toMatchObject({ status: 400 });
    expect(await req('POST', '/v1.24/plugins/pull?remote=r/x&name=bfx')).toMatchObject({ status: 400, text: '{"message":"failed to parse privileges: EOF"}\n' });
    const ok = await req('POST', '/v1.24/plugins/pull?remote=r/x&name=bfx', JSON.stringify(PRIV));
    expect(ok).toMatchObject({ status: 200, headers: { 'content-type': 'application/json' }, text: '{"status":"Pulling from x"}\n' });
    expect(calls).toContain(`pull r/x bfx ${JSON.stringify(PRIV)}`);
    const late = await req('POST', '/v1.24/plugins/pull?remote=late&name=bfx', '[]');
    expect(late.text.split('\n')[1]).toBe('{"errorDetail":{"message":"incorrect privileges"},"error":"incorrect privileges"}');
    expect(JSON.parse((await req('GET', '/v1.24/plugins/privileges?remote=r/x')).text)).toEqual(PRIV);
  });
  test('enable, disable, remove: 200 with an empty body; a bad timeout is 400', async () => {
    for (const [m, p] of [['POST', '/v1.24/plugins/bfx/enable?timeout=0'], ['POST', '/v1.24/plugins/bfx/disable'], ['DELETE', '/v1.24/plugins/bfx']]) expect(await req(m, p)).toMatchObject({ status: 200, text: '' });
    expect(calls.slice(-3)).toEqual(['enable bfx', 'disable bfx', 'remove bfx']);
    expect(await req('POST', '/v1.24/plugins/bfx/enable?timeout=x')).toMatchObject({ status: 400, text: '{"message":"strconv.Atoi: parsing \\"x\\": invalid syntax"}\n' });
  });
});
