// handlers/networks over a real socket with fake backends: list filters, 403 vs 500 for predefined networks per
// version, connect handing the container and its endpoint config on.
import { networkRoutes, NetworksBackend, NetworkEndpointsBackend, ContainerLookup } from '../../../src/handlers/networks';
import { forbidden } from '../../../src/errors';
import type { NetworkRecord } from '../../../src/types/network';
import { containerRecord, fake } from '../../helpers/fakes';
import { serveRoutes, Served } from '../../helpers/serve-routes';

const net = (Name: string, Id: string, Predefined = false): NetworkRecord => ({
  Name, Id, Created: '2024-01-01T00:00:00Z', Scope: 'local', Driver: Predefined && Name !== 'bridge' ? Name : 'bridge', EnableIPv6: false, Internal: false,
  IPAM: { Driver: 'default', Options: null, Config: [] }, Options: {}, Labels: Predefined ? {} : { team: 'a' }, Predefined,
});
const nets = [net('bridge', '1'.repeat(64), true), net('host', '2'.repeat(64), true), net('front', '3'.repeat(64))];
const connects: unknown[] = [];
const networks = fake<NetworksBackend>({
  list: () => nets,
  find: (ref) => nets.find((n) => n.Name === ref || n.Id === ref)!,
  refresh: async () => undefined,
});
const endpoints = fake<NetworkEndpointsBackend>({
  endpointsOn: () => [],
  connect: async (rec, n, cfg) => void connects.push([rec.Name, n.Name, cfg]),
  removeNetwork: async () => {
    throw forbidden('bridge is a pre-defined network and cannot be removed');
  },
});
const containers = fake<ContainerLookup>({ find: () => containerRecord() });

let s: Served;
beforeAll(async () => (s = await serveRoutes(networkRoutes(networks, endpoints, containers))));
afterAll(() => s.close());
const listed = async (q: string) => (JSON.parse((await s.request('GET', `/networks?filters=${encodeURIComponent(q)}`)).text) as { Name: string }[]).map((n) => n.Name);

test('type and label filters', async () => {
  expect(await listed('{"type":["custom"]}')).toEqual(['front']);
  expect(await listed('{"type":["builtin"]}')).toEqual(['bridge', 'host']);
  expect(await listed('{"label":["team=a"]}')).toEqual(['front']);
  const bad = await s.request('GET', `/networks?filters=${encodeURIComponent('{"type":["odd"]}')}`);
  expect([bad.status, bad.text]).toEqual([400, `{"message":"invalid filter: 'type'='odd'"}\n`]);
  const old = await s.request('GET', `/v1.21/networks?filters=${encodeURIComponent('{"label":["x"]}')}`);
  expect([old.status, old.text]).toEqual([400, "Invalid filter 'label'\n"]);
});

test('removing a predefined network: 403 at every version (the spec lists it for Remove without a version)', async () => {
  expect(await s.request('DELETE', '/networks/bridge')).toMatchObject({ status: 403, text: '{"message":"bridge is a pre-defined network and cannot be removed"}\n' });
  expect(await s.request('DELETE', '/v1.23/networks/bridge')).toMatchObject({ status: 403, text: 'bridge is a pre-defined network and cannot be removed\n' });
});

test('connect hands the container and endpoint config to the backend', async () => {
  const r = await s.request('POST', '/networks/front/connect', JSON.stringify({ Container: 'web', EndpointConfig: { Aliases: ['w'] } }), { 'Content-Type': 'application/json' });
  expect(r.status).toBe(200);
  expect(connects).toEqual([['/web', 'front', { IPAMConfig: null, Aliases: ['w'], Links: null }]]);
});
