// Request limits (issue 19): bounded concurrency of the expensive routes (429 beyond the queue, a queued request
// whose client leaves frees its place), the header cap (431 from node), Config.Volumes typing and its per-create
// bound, and label filters of swarm lists reading own keys only.
import { thrownMessage } from '../helpers/fakes';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/http/app';
import { MAX_HEADER_BYTES } from '../../src/http/server';
import { writeJSON } from '../../src/http/respond';
import { MAX_CREATE_VOLUMES, normaliseCreateBody } from '../../src/translate/request/create';
import { nodeFilter, taskFilter } from '../../src/translate/request/swarm';
import type { NodeRecord, TaskRecord } from '../../src/types/swarm';

function get(port: number, method: string, path: string, headers: Record<string, string> = {}): { done: Promise<{ status: number; text: string }>; req: http.ClientRequest } {
  let req!: http.ClientRequest;
  const done = new Promise<{ status: number; text: string }>((resolve, reject) => {
    req = http.request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, text }));
    });
    req.on('error', reject);
    req.end();
  });
  return { done, req };
}

describe('bounded concurrency of expensive routes', () => {
  let server: http.Server;
  let port: number;
  const release: (() => void)[] = [];
  let started = 0;
  beforeAll(async () => {
    const app = createApp({
      serverVersion: 't',
      concurrency: { running: 2, queued: 1 },
      routes: [
        {
          method: 'post',
          path: '/commit',
          handler: async (_req, res) => {
            started++;
            await new Promise<void>((r) => release.push(r));
            writeJSON(res, 201, { Id: 'x' });
          },
        },
        { method: 'get', path: '/_ping', handler: (_req, res) => writeJSON(res, 200, 'OK') },
      ],
    });
    server = http.createServer({ maxHeaderSize: MAX_HEADER_BYTES }, app);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });
  const until = async (f: () => boolean) => {
    for (let i = 0; i < 200 && !f(); i++) await new Promise((r) => setTimeout(r, 5));
  };

  test('two run, one waits, the next is 429 at once; cheap routes pass; a waiter that leaves frees its place', async () => {
    const a = get(port, 'POST', '/v1.24/commit');
    const b2 = get(port, 'POST', '/v1.24/commit');
    await until(() => started === 2);
    const c = get(port, 'POST', '/v1.24/commit?container=x');
    await new Promise((r) => setTimeout(r, 50));
    const d = await get(port, 'POST', '/v1.24/commit').done;
    expect(d.status).toBe(429);
    expect(JSON.parse(d.text).message).toMatch(/^too many concurrent builds, pulls, .*: 2 running and 1 waiting \(berth's limit\); try again later$/);
    expect((await get(port, 'GET', '/v1.24/_ping').done).status).toBe(200);
    // the waiter leaves; a new request takes the queue place, and runs once a running one ends
    c.req.destroy();
    c.done.catch(() => undefined);
    await new Promise((r) => setTimeout(r, 50));
    const e = get(port, 'POST', '/v1.24/commit');
    await new Promise((r) => setTimeout(r, 50));
    expect(started).toBe(2);
    release.shift()!();
    expect((await a.done).status).toBe(201);
    await until(() => started === 3);
    expect(started).toBe(3);
    release.shift()!();
    release.shift()!();
    expect([(await b2.done).status, (await e.done).status]).toEqual([201, 201]);
  });

  test('headers beyond 64 KiB are 431 from node; the server goes on', async () => {
    expect((await get(port, 'GET', '/v1.24/_ping', { 'X-Big': 'a'.repeat(MAX_HEADER_BYTES) }).done).status).toBe(431);
    expect((await get(port, 'GET', '/v1.24/_ping', { 'X-Registry-Config': 'a'.repeat(40_000) }).done).status).toBe(200);
  });
});

test("Config.Volumes: wrong-typed entries refused with the engine's message; at most MAX_CREATE_VOLUMES per create", () => {
  const msg = (body: unknown) => thrownMessage(() => normaliseCreateBody(body, '1.24'));
  expect(msg({ Image: 'b', Volumes: { '/a': 1 } })).toBe('json: cannot unmarshal number into Go struct field ContainerConfigWrapper.Volumes of type struct {}');
  expect(msg({ Image: 'b', Volumes: { '/a': 'x' } })).toBe('json: cannot unmarshal string into Go struct field ContainerConfigWrapper.Volumes of type struct {}');
  expect(msg({ Image: 'b', Volumes: { '/a': [] } })).toBe('json: cannot unmarshal array into Go struct field ContainerConfigWrapper.Volumes of type struct {}');
  expect(msg({ Image: 'b', Volumes: ['/a'] })).toBe('json: cannot unmarshal array into Go struct field ContainerConfigWrapper.Volumes of type map[string]struct {}');
  expect(msg({ Image: 'b', Volumes: { '/a': {}, '/b': null } })).toBe('ok');
  const many = Object.fromEntries(Array.from({ length: MAX_CREATE_VOLUMES + 1 }, (_, i) => [`/v${i}`, {}]));
  expect(msg({ Image: 'b', Volumes: many })).toBe(`too many volumes in one create: ${MAX_CREATE_VOLUMES + 1} (berth accepts at most ${MAX_CREATE_VOLUMES})`);
});

test('swarm node and task label filters read own keys only (__proto__, constructor, toString)', () => {
  const node = { id: 'n1', spec: { Name: 'n', Role: 'worker', Labels: {} }, description: { hostname: 'h' } } as unknown as NodeRecord;
  const task = { ID: 't1', Name: 't', ServiceID: 's', DesiredState: 'running', Labels: {} } as unknown as TaskRecord;
  for (const k of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
    expect(nodeFilter(new Map([['node.label', [k]]]))(node)).toBe(false);
    expect(nodeFilter(new Map([['label', [`${k}=x`]]]))(node)).toBe(false);
    expect(taskFilter({ filters: new Map([['label', [k]]]), serviceIds: [], nodeIds: [] })(task)).toBe(false);
  }
  expect(nodeFilter(new Map([['label', ['__proto__=x']]]))({ ...node, spec: { ...node.spec, Labels: JSON.parse('{"__proto__":"x"}') } } as NodeRecord)).toBe(true);
});
