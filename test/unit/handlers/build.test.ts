// POST /build's handler over a real socket with a fake backend: the query per version, the stream's bytes (Go's
// escaping), errors before the stream as a status and during it as errorDetail, the context disposed.
import { invalidParameter } from '../../../src/errors';
import { buildRoutes, BuildBackend } from '../../../src/handlers/build';
import type { BuildRequest } from '../../../src/types/build';
import { serveRoutes, Served } from '../../helpers/serve-routes';

let s: Served;
let seen: Omit<BuildRequest, 'body'> | undefined;
let disposed = 0;
let mode: 'ok' | 'fail-before' | 'fail-during' = 'ok';

const backend: BuildBackend = {
  async prepare(o) {
    const { body, ...rest } = o;
    let n = 0;
    for await (const c of body as AsyncIterable<Buffer>) n += c.length;
    seen = { ...rest, bodyBytes: n } as never;
    if (mode === 'fail-before') throw invalidParameter('Cannot locate specified Dockerfile: Dockerfile');
    return { dispose: async () => void disposed++ };
  },
  async run(_b, out) {
    out({ stream: 'Step 1/1 : FROM a' });
    out({ stream: ' ---> 0123456789ab\n' });
    if (mode === 'fail-during') throw Object.assign(new Error("The command '/bin/sh -c exit 3' returned a non-zero code: 3"), { code: 3 });
    out({ aux: { ID: 'sha256:0123' } });
    return 'sha256:0123';
  },
};

beforeAll(async () => (s = await serveRoutes(buildRoutes(backend))));
afterAll(() => s.close());

const post = (path: string, body = 'ctx', headers: Record<string, string> = {}) => s.request('POST', path, body, headers);

describe('POST /build handler', () => {
  beforeEach(() => {
    mode = 'ok';
    seen = undefined;
    disposed = 0;
  });

  test('the stream is written as the engine writes it (Go escaping of >), and the context is disposed', async () => {
    const r = await post('/v1.24/build?t=a&t=b:2&q=1&nocache=1&rm=0&dockerfile=sub/D');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.text).toBe('{"stream":"Step 1/1 : FROM a"}\n{"stream":" ---\\u003e 0123456789ab\\n"}\n{"aux":{"ID":"sha256:0123"}}\n');
    expect(seen).toMatchObject({ tags: ['a', 'b:2'], quiet: true, nocache: true, rm: false, forcerm: false, dockerfile: 'sub/D', bodyBytes: 3 });
    expect(disposed).toBe(1);
  });

  test('buildargs from 1.21, shmsize from 1.22, labels from 1.23; forcerm implies rm; X-Registry-Config decoded', async () => {
    const q = `buildargs=${encodeURIComponent('{"A":"1"}')}&shmsize=1024&labels=${encodeURIComponent('{"l":"v"}')}&forcerm=1&rm=0&memory=4194304`;
    const cfg = Buffer.from(JSON.stringify({ 'localhost:5000': { username: 'u', password: 'p' } })).toString('base64');
    await post(`/v1.20/build?${q}`);
    expect(seen).toMatchObject({ buildArgs: {}, labels: {}, resources: { Memory: 4194304 }, rm: true, forcerm: true });
    await post(`/v1.22/build?${q}`);
    expect(seen).toMatchObject({ buildArgs: { A: '1' }, labels: {}, resources: { Memory: 4194304, ShmSize: 1024 } });
    await post(`/v1.23/build?${q}`, 'x', { 'X-Registry-Config': cfg });
    expect(seen).toMatchObject({ labels: { l: 'v' }, registryConfig: { 'localhost:5000': { username: 'u', password: 'p' } } });
  });

  test('errors before the build: a status and the version\'s error body; bad buildargs JSON is 400', async () => {
    mode = 'fail-before';
    const r = await post('/v1.24/build');
    expect([r.status, r.text]).toEqual([400, '{"message":"Cannot locate specified Dockerfile: Dockerfile"}\n']);
    const old = await post('/v1.23/build');
    expect([old.status, old.text]).toEqual([400, 'Cannot locate specified Dockerfile: Dockerfile\n']);
    mode = 'ok';
    const bad = await post('/v1.24/build?buildargs=notjson');
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text).message).toMatch(/^error reading build args: /);
  });

  test('errors during the build: errorDetail with the RUN\'s code in the stream', async () => {
    mode = 'fail-during';
    const r = await post('/v1.24/build');
    expect(r.status).toBe(200);
    const last = r.text.trim().split('\n').pop()!;
    expect(last).toBe('{"errorDetail":{"code":3,"message":"The command \'/bin/sh -c exit 3\' returned a non-zero code: 3"},"error":"The command \'/bin/sh -c exit 3\' returned a non-zero code: 3"}');
    expect(disposed).toBe(1);
  });
});
