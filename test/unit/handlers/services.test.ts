// handlers/services over a real socket with a fake backend: create's 201 body, list and inspect shapes, update's
// version parsing (the reference's messages), delete.
import { serviceRoutes, ServicesBackend } from '../../../src/handlers/services';
import { conflict, notFound } from '../../../src/errors';
import type { ServiceRecord, Versioned } from '../../../src/types/swarm';
import { fake } from '../../helpers/fakes';
import { serveRoutes, Served } from '../../helpers/serve-routes';

const svc: Versioned<ServiceRecord> = {
  version: 12,
  value: {
    id: 'svc1',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:01.000Z',
    spec: {
      Name: 'web',
      Labels: {},
      TaskTemplate: { ContainerSpec: { Image: 'busybox', Isolation: 'default' }, ForceUpdate: 0, Runtime: 'container' },
      Mode: { Replicated: { Replicas: 2 } },
      EndpointSpec: { Mode: 'vip', Ports: [{ Protocol: 'tcp', TargetPort: 80, PublishMode: 'ingress' }] },
    },
    ports: [{ Protocol: 'tcp', TargetPort: 80, PublishedPort: 30000, PublishMode: 'ingress' }],
    specVersion: 1,
  },
};
const calls: unknown[][] = [];
const backend = fake<ServicesBackend>({
  list: async (f) => (f.get('name')?.[0] === 'x' ? [] : [svc]),
  inspect: async (ref) => {
    if (ref !== 'web') throw notFound(`service ${ref} not found`);
    return svc;
  },
  create: async (body) => {
    calls.push(['create', body]);
    return { id: 'svc2', warnings: ['w'] };
  },
  update: async (ref, version, body) => {
    calls.push(['update', ref, version, body]);
    if (version !== 12) throw conflict('rpc error: code = Unknown desc = update out of sequence');
    return { warnings: [] };
  },
  remove: async (ref) => void calls.push(['remove', ref]),
});

let s: Served;
beforeAll(async () => (s = await serveRoutes(serviceRoutes(backend))));
afterAll(() => s.close());
const json = { 'Content-Type': 'application/json' };

test('create: 201 with ID and Warnings; an empty body is the reference 400', async () => {
  const c = await s.request('POST', '/v1.24/services/create', JSON.stringify({ Name: 'x' }), json);
  expect([c.status, c.headers['content-type'], c.text]).toEqual([201, 'application/json', '{"ID":"svc2","Warnings":["w"]}\n']);
  expect(calls.pop()).toEqual(['create', { Name: 'x' }]);
  const e = await s.request('POST', '/v1.24/services/create', '', json);
  expect([e.status, e.text]).toEqual([400, '{"message":"got EOF while reading request body"}\n']);
});

test('list and inspect: the Service object with Endpoint ports', async () => {
  const l = JSON.parse((await s.request('GET', '/v1.24/services')).text);
  expect(l).toEqual([
    {
      ID: 'svc1',
      Version: { Index: 12 },
      CreatedAt: '2026-01-01T00:00:00.000Z',
      UpdatedAt: '2026-01-01T00:00:01.000Z',
      Spec: svc.value.spec,
      Endpoint: { Spec: svc.value.spec.EndpointSpec, Ports: svc.value.ports },
    },
  ]);
  expect(JSON.parse((await s.request('GET', `/v1.24/services?filters=${encodeURIComponent('{"name":["x"]}')}`)).text)).toEqual([]);
  const m = await s.request('GET', '/v1.24/services/nope');
  expect([m.status, m.text]).toEqual([404, '{"message":"service nope not found"}\n']);
});

test('update: version required and numeric, stale 409, 200 with Warnings', async () => {
  const body = JSON.stringify(svc.value.spec);
  const nv = await s.request('POST', '/v1.24/services/web/update', body, json);
  expect([nv.status, nv.text]).toEqual([400, '{"message":"invalid service version \'\': strconv.ParseUint: parsing \\"\\": invalid syntax"}\n']);
  const st = await s.request('POST', '/v1.24/services/web/update?version=3', body, json);
  expect([st.status, st.text]).toEqual([409, '{"message":"rpc error: code = Unknown desc = update out of sequence"}\n']);
  const ok = await s.request('POST', '/v1.24/services/web/update?version=12', body, json);
  expect([ok.status, ok.text]).toEqual([200, '{"Warnings":[]}\n']);
});

test('delete: 200 with no body', async () => {
  const d = await s.request('DELETE', '/v1.24/services/web');
  expect([d.status, d.text]).toEqual([200, '']);
  expect(calls.pop()).toEqual(['remove', 'web']);
});
