// Swarm mode without a cluster: the handlers over a real socket with a fake backend (status, headers, bodies), the
// pure request checks and shapes, and the CA's tokens and certificates.
import * as crypto from 'node:crypto';
import { swarmRoutes, SwarmBackend } from '../../src/handlers/swarm';
import { nodeRoutes, NodesBackend } from '../../src/handlers/nodes';
import { conflict, notAcceptable } from '../../src/errors';
import { mergeInitSpec, normalizeUpdateSpec, DEFAULT_SWARM_SPEC, toNodeJSON, heartbeatPeriodMs, etcdRaftOf } from '../../src/translate/response/swarm';
import { nodeFilter, parseNodeSpec, parseVersion, resolveSwarmAddrs } from '../../src/translate/request/swarm';
import * as ca from '../../src/cluster/ca';
import { initialClusterOf } from '../../src/cluster/state';
import type { NodeRecord, NodeView } from '../../src/types/swarm';
import { serveRoutes, Served } from '../helpers/serve-routes';

const calls: unknown[][] = [];
const node: NodeRecord = {
  id: 'n1',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  spec: { Role: 'manager', Availability: 'active', Labels: { zone: 'a' } },
  description: { hostname: 'h1', architecture: 'x86_64', os: 'linux', nanoCPUs: 2e9, memoryBytes: 1024, engineVersion: '0.1.0' },
  addr: '127.0.0.5',
  managerAddr: '127.0.0.5:2377',
  peerURL: 'https://127.0.0.5:2380',
  clientURL: 'https://127.0.0.5:2379',
};
const tls = { trustRoot: 'PEM', subject: 'S', publicKey: 'P' };
const view: NodeView = { node: { value: node, version: 7 }, ready: true, leader: true, caCert: 'PEM' };

const swarm: SwarmBackend = {
  init: async (r) => {
    calls.push(['init', r]);
    return 'nodeid';
  },
  join: async (r) => {
    calls.push(['join', r]);
  },
  leave: async (force) => {
    calls.push(['leave', force]);
  },
  inspect: async () => {
    throw notAcceptable('not a manager');
  },
  update: async (version, spec, rotate) => {
    calls.push(['update', version, spec, rotate]);
    if (version === 1) throw conflict('rpc error: code = Unknown desc = update out of sequence');
  },
  info: async () => undefined,
};
const nodes: NodesBackend = {
  nodes: async (f) => ({ views: nodeFilter(f)(node) ? [view] : [], tls }),
  node: async () => ({ view, tls }),
  updateNode: async (ref, version, spec) => {
    calls.push(['updateNode', ref, version, spec]);
  },
  removeNode: async (ref, force) => {
    calls.push(['removeNode', ref, force]);
  },
  tasks: async () => [],
  task: async () => ({ value: { ID: 't1', CreatedAt: 'c', UpdatedAt: 'u', Labels: {}, Spec: { ContainerSpec: { Image: 'busybox' }, ForceUpdate: 0, Runtime: 'container' }, ServiceID: 's', Slot: 1, Status: { Timestamp: 'ts', State: 'new', Message: 'created' }, DesiredState: 'running', serviceName: 'web', specVersion: 1 }, version: 3 }),
};

let s: Served;
beforeAll(async () => (s = await serveRoutes([...swarmRoutes(swarm), ...nodeRoutes(nodes)], { serverVersion: '0.1.0' })));
afterAll(() => s.close());

const req = (method: string, path: string, body?: string) => s.request(method, path, body, body !== undefined ? { 'Content-Type': 'application/json' } : {});

describe('swarm handlers', () => {
  test('init answers the node id as a JSON string; bodies are required and parsed', async () => {
    const r = await req('POST', '/v1.24/swarm/init', JSON.stringify({ ListenAddr: '127.0.0.5:2377' }));
    expect([r.status, r.headers['content-type'], r.text]).toEqual([200, 'application/json', '"nodeid"\n']);
    expect(calls.pop()).toEqual(['init', { ListenAddr: '127.0.0.5:2377' }]);
    expect(await req('POST', '/v1.24/swarm/init', '')).toMatchObject({ status: 400, text: '{"message":"got EOF while reading request body"}\n' });
    expect((await req('POST', '/v1.24/swarm/join', '{bad')).status).toBe(400);
  });

  test('leave passes force; update parses the version, the spec and the rotations', async () => {
    expect((await req('POST', '/v1.24/swarm/leave?force=1')).status).toBe(200);
    expect(calls.pop()).toEqual(['leave', true]);
    expect((await req('POST', '/v1.24/swarm/update?version=9&rotateWorkerToken=true', '{"Orchestration":{}}')).status).toBe(200);
    expect(calls.pop()).toEqual(['update', 9, { Orchestration: {} }, { worker: true, manager: false }]);
    expect(await req('POST', '/v1.24/swarm/update?version=1', '{}')).toMatchObject({ status: 409, text: '{"message":"rpc error: code = Unknown desc = update out of sequence"}\n' });
    expect(await req('POST', '/v1.24/swarm/update?version=x', '{}')).toMatchObject({ status: 400, text: '{"message":"invalid swarm version \'x\': strconv.ParseUint: parsing \\"x\\": invalid syntax"}\n' });
    expect((await req('GET', '/v1.23/swarm')).text).toBe('not a manager\n');
  });

  test('nodes: list with filters, inspect, update (body, then version, then spec), delete', async () => {
    const list = JSON.parse((await req('GET', `/v1.24/nodes?filters=${encodeURIComponent('{"role":["manager"]}')}`)).text);
    expect(list).toHaveLength(1);
    expect(list[0].ManagerStatus).toEqual({ Leader: true, Reachability: 'reachable', Addr: '127.0.0.5:2377' });
    expect(JSON.parse((await req('GET', `/v1.24/nodes?filters=${encodeURIComponent('{"role":["worker"]}')}`)).text)).toEqual([]);
    expect(await req('GET', `/v1.24/nodes?filters=${encodeURIComponent('{"role":["x"]}')}`)).toMatchObject({ status: 400, text: '{"message":"Invalid role filter: \'x\'"}\n' });
    expect((await req('POST', '/v1.24/nodes/n1/update?version=7', '{"Role":"worker","Availability":"drain"}')).status).toBe(200);
    expect(calls.pop()).toEqual(['updateNode', 'n1', 7, { Role: 'worker', Availability: 'drain' }]);
    expect((await req('POST', '/v1.24/nodes/n1/update', '')).text).toBe('{"message":"got EOF while reading request body"}\n');
    expect((await req('POST', '/v1.24/nodes/n1/update', '{"Role":"x"}')).text).toContain('invalid node version');
    expect((await req('POST', '/v1.24/nodes/n1/update?version=7', '{"Role":"x"}')).text).toBe('{"message":"invalid Role: \\"x\\""}\n');
    expect((await req('DELETE', '/v1.24/nodes/n1?force=true')).status).toBe(200);
    expect(calls.pop()).toEqual(['removeNode', 'n1', true]);
    expect(JSON.parse((await req('GET', '/v1.24/tasks/t1')).text)).toEqual({ ID: 't1', Version: { Index: 3 }, CreatedAt: 'c', UpdatedAt: 'u', Labels: {}, Spec: { ContainerSpec: { Image: 'busybox' }, ForceUpdate: 0 }, ServiceID: 's', Slot: 1, Status: { Timestamp: 'ts', State: 'new', Message: 'created', PortStatus: {} }, DesiredState: 'running' });
  });
});

describe('swarm translate', () => {
  test('init merges non-zero fields over the defaults; update replaces, dropping zero fields as the reference', () => {
    expect(mergeInitSpec(undefined)).toEqual(DEFAULT_SWARM_SPEC);
    expect(mergeInitSpec({ Dispatcher: { HeartbeatPeriod: 1e9 }, Orchestration: { TaskHistoryRetentionLimit: 0 } }).Dispatcher).toEqual({ HeartbeatPeriod: 1e9 });
    expect(mergeInitSpec({ Orchestration: { TaskHistoryRetentionLimit: 0 } }).Orchestration).toEqual({ TaskHistoryRetentionLimit: 5 });
    // the reference's answer to POST /swarm/update with {}
    expect(normalizeUpdateSpec({})).toEqual({
      Name: 'default', Labels: {}, Orchestration: { TaskHistoryRetentionLimit: 0 }, Raft: { KeepOldSnapshots: 0, ElectionTick: 0, HeartbeatTick: 0 },
      Dispatcher: {}, CAConfig: {}, TaskDefaults: {}, EncryptionConfig: { AutoLockManagers: false },
    });
    expect(heartbeatPeriodMs({})).toBe(5000);
  });

  test('a down manager is unreachable and not leader', () => {
    const j = toNodeJSON({ ...view, ready: false, leader: false }, tls) as { Status: unknown; ManagerStatus: unknown };
    expect(j.Status).toEqual({ State: 'down', Addr: '127.0.0.5' });
    expect(j.ManagerStatus).toEqual({ Reachability: 'unreachable', Addr: '127.0.0.5:2377' });
  });

  test('addresses: the advertise address defaults to the listen IP; interfaces resolve; bad ones are the reference 400', () => {
    const ifs = { lo: ['127.0.0.1'], eth0: ['192.0.2.4'] };
    expect(resolveSwarmAddrs('127.0.0.7:2377', undefined, ifs)).toEqual({ listenIP: '127.0.0.7', listenPort: 2377, advertiseIP: '127.0.0.7', advertisePort: 2377 });
    expect(resolveSwarmAddrs(undefined, 'eth0', ifs)).toMatchObject({ listenIP: '0.0.0.0', advertiseIP: '192.0.2.4' });
    expect(resolveSwarmAddrs(undefined, undefined, ifs).advertiseIP).toBe('192.0.2.4');
    expect(() => resolveSwarmAddrs(undefined, 'nope', ifs)).toThrow('advertise address must be a non-zero IP address or network interface (with optional port number)');
    expect(() => resolveSwarmAddrs(undefined, undefined, { ...ifs, eth1: ['198.51.100.1'] })).toThrow(/could not choose an IP address to advertise/);
    // a bridge (any virtual link) is not a candidate for the default, as the engine's links of a kind are not; named,
    // it is used
    const withBridge = { ...ifs, docker0: ['172.17.0.1'], br1: ['10.1.0.1'] };
    const devices = new Set(['lo', 'eth0']);
    expect(resolveSwarmAddrs(undefined, undefined, withBridge, devices).advertiseIP).toBe('192.0.2.4');
    expect(resolveSwarmAddrs(undefined, 'br1', withBridge, devices).advertiseIP).toBe('10.1.0.1');
    expect(() => resolveSwarmAddrs(undefined, undefined, withBridge, new Set(['lo']))).toThrow("could not find the system's IP address - specify one with --advertise-addr");
  });

  test('node spec and version checks', () => {
    expect(() => parseNodeSpec({ Availability: 'active' })).toThrow('invalid Role: ""');
    expect(() => parseNodeSpec({ Role: 'worker', Availability: 'bogus' })).toThrow('invalid Availability: "bogus"');
    expect(parseNodeSpec({ Role: 'worker', Availability: 'pause', Labels: { a: 'b' } })).toEqual({ Role: 'worker', Availability: 'pause', Labels: { a: 'b' } });
    expect(parseVersion('12', 'node')).toBe(12);
    expect(() => parseVersion('', 'node')).toThrow(`invalid node version '': strconv.ParseUint: parsing "": invalid syntax`);
  });
});

describe('the cluster CA', () => {
  test('tokens carry the CA digest and a secret; anything else is an invalid join token', async () => {
    const root = await ca.createRootCA();
    const secret = ca.newSecret();
    const token = ca.joinToken(root.cert, secret);
    expect(token).toMatch(/^SWMTKN-1-[0-9a-z]{50}-[0-9a-z]{25}$/);
    expect(ca.parseJoinToken(token)).toEqual({ digest: ca.caDigest(root.cert), secret });
    for (const bad of ['', 'SWMTKN-1-x-y', token.replace('SWMTKN-1', 'SWMTKN-2'), token + 'x']) expect(() => ca.parseJoinToken(bad)).toThrow('invalid join token');
    // the issuer subject as the reference's CA writes it (CN=swarm-ca, PrintableString)
    expect(ca.tlsInfoOf(root.cert).subject).toBe('MBMxETAPBgNVBAMTCHN3YXJtLWNh');
    const key = ca.newKey();
    const cert = await ca.signNodeCert(root, { csr: await ca.createCSR(key), nodeId: 'abc', clusterId: 'def', role: 'worker', ip: '127.0.0.9', expirySec: 3600 });
    const x = new crypto.X509Certificate(cert);
    // the lifetime to the second (CAConfig.NodeCertExpiry)
    expect(Date.parse(x.validTo) - Date.parse(x.validFrom)).toBe(3600_000);
    expect(x.verify(new crypto.X509Certificate(root.cert).publicKey)).toBe(true);
    expect(x.subject).toBe('O=def\nOU=swarm-worker\nCN=abc');
    expect(x.subjectAltName).toContain('IP Address:127.0.0.9');
    expect(x.checkPrivateKey(crypto.createPrivateKey(key))).toBe(true);
  });
});

describe('initialClusterOf (a member joining an existing etcd cluster)', () => {
  const a = { id: '1', name: 'nodeA', peerURLs: ['https://127.0.0.1:2380'], clientURLs: ['https://127.0.0.1:2379'] };
  const pending = { id: '2', name: '', peerURLs: ['https://127.0.0.2:2380'], clientURLs: [] };
  test('every member is listed (etcd checks the count): one not started yet under a placeholder, this one under its own name', () => {
    const self = { id: '3', name: '', peerURLs: ['https://127.0.0.3:2380'], clientURLs: [] };
    expect(initialClusterOf([a, pending, self], 'nodeC', 'https://127.0.0.3:2380')).toBe(
      'nodeA=https://127.0.0.1:2380,pending-2=https://127.0.0.2:2380,nodeC=https://127.0.0.3:2380',
    );
  });
  test('a member not in the list yet (before its member add) is added', () => {
    expect(initialClusterOf([a], 'nodeC', 'https://127.0.0.3:2380')).toBe('nodeA=https://127.0.0.1:2380,nodeC=https://127.0.0.3:2380');
  });
});

describe('etcdRaftOf (Spec.Raft as etcd settings)', () => {
  test('the defaults: 1 and 10 ticks of 100 ms, a snapshot every 10000 entries, the current one kept', () => {
    expect(etcdRaftOf(DEFAULT_SWARM_SPEC)).toEqual({ heartbeatMs: 100, electionMs: 1000, snapshotCount: 10000, maxSnapshots: 1 });
    expect(etcdRaftOf({ Raft: { ElectionTick: 0, HeartbeatTick: 0, KeepOldSnapshots: 0 } })).toEqual(etcdRaftOf({}));
  });
  test('the election timeout stays within etcd\'s bounds (at least 5 heartbeats, at most 50 s)', () => {
    expect(etcdRaftOf({ Raft: { HeartbeatTick: 3, ElectionTick: 4 } })).toMatchObject({ heartbeatMs: 300, electionMs: 1500 });
    expect(etcdRaftOf({ Raft: { ElectionTick: 1000 } }).electionMs).toBe(50_000);
    expect(etcdRaftOf({ Raft: { SnapshotInterval: 5, KeepOldSnapshots: 4 } })).toMatchObject({ snapshotCount: 5, maxSnapshots: 5 });
  });
});
