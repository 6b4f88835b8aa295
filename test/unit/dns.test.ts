// The embedded resolver's answers (docs/dns.md), from DnsService + DnsServer over fake records, on 127.0.0.1:
// peers by name/alias/short id, name.network, AAAA without IPv6, PTR, extra name sources, unknown clients refused,
// non-DNS packets dropped, TCP framing. Forwarding and the in-container path are in test/integration/dns.test.ts.
import * as dgram from 'node:dgram';
import * as net from 'node:net';
import * as dnsPacket from 'dns-packet';
import { silentLogger } from '../../src/log';
import { DnsService, ptrAddress } from '../../src/services/dns';
import type { NetworkService } from '../../src/services/networks';
import type { ContainerStore } from '../../src/store/containers';
import type { ContainerRecord } from '../../src/types/container';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);
const netA = { Id: A, Name: 'front', Driver: 'bridge', Predefined: false, Internal: false };
const netB = { Id: B, Name: 'back', Driver: 'bridge', Predefined: false, Internal: false };
const ep = (n: { Id: string; Name: string }, ip: string) => ({ network: n.Name, networkId: n.Id, ifname: 'eth0', ip, prefixLen: 8, gateway: '127.0.0.1', mac: '', ports: {}, mappings: [] });
const rec = (id: string, name: string, eps: Record<string, ReturnType<typeof ep>>, aliases: string[] = []) =>
  ({ Id: id, Name: `/${name}`, State: { Running: true }, HostConfig: {}, Networks: Object.fromEntries(Object.values(eps).map((e) => [e.network, { NetworkID: e.networkId, Aliases: aliases, IPAMConfig: null, Links: null }])), Endpoints: eps }) as unknown as ContainerRecord;
const recs = [
  rec('1'.repeat(64), 'client', { front: ep(netA, '127.0.9.1') }),
  rec('2'.repeat(64), 'web', { front: ep(netA, '127.0.9.2') }, ['www']),
  rec('3'.repeat(64), 'db', { back: ep(netB, '127.0.9.3') }),
];
const store = { all: () => recs } as unknown as ContainerStore;
const networks = { tryFind: (r: string) => [netA, netB].find((n) => n.Id === r || n.Name === r) } as unknown as NetworkService;

let dns: DnsService;
let ports: { udp: number; tcp: number };
beforeAll(async () => {
  dns = new DnsService({ store, networks, logger: silentLogger() });
  ports = await dns.server.ensure(A, '127.0.0.1');
});
afterAll(() => dns.close());

function udp(name: string, type: string, from = '127.0.9.1', raw?: Buffer): Promise<Decoded | 'timeout'> {
  const s = dgram.createSocket('udp4');
  return new Promise((resolve) => {
    const t = setTimeout(() => (s.close(), resolve('timeout')), 300);
    s.on('message', (m) => (clearTimeout(t), s.close(), resolve(dnsPacket.decode(m) as Decoded)));
    s.bind(0, from, () => s.send(raw ?? dnsPacket.encode({ type: 'query', id: 9, flags: dnsPacket.RECURSION_DESIRED, questions: [{ type: type as 'A', name }] }), ports.udp, '127.0.0.1'));
  });
}
type Decoded = Omit<dnsPacket.Packet, 'answers'> & { rcode?: string; answers?: { data: unknown; ttl?: number }[] };
const datas = (p: Decoded | 'timeout') => (p === 'timeout' ? p : [p.rcode, (p.answers ?? []).map((a) => a.data)]);

test('peers by name, alias and short id, case-insensitively, with the TTL and flags of a recursive answer', async () => {
  const p = await udp('WWW', 'A');
  expect(datas(p)).toEqual(['NOERROR', ['127.0.9.2']]);
  expect(p !== 'timeout' && [p.id, p.answers![0].ttl, p.flags! & dnsPacket.RECURSION_AVAILABLE]).toEqual([9, 600, dnsPacket.RECURSION_AVAILABLE]);
  expect(datas(await udp('web', 'A'))).toEqual(['NOERROR', ['127.0.9.2']]);
  expect(datas(await udp('222222222222', 'A'))).toEqual(['NOERROR', ['127.0.9.2']]);
  expect(datas(await udp('web.front', 'A'))).toEqual(['NOERROR', ['127.0.9.2']]);
  expect(datas(await udp('client', 'A'))).toEqual(['NOERROR', ['127.0.9.1']]);
  expect(datas(await udp('web', 'AAAA'))).toEqual(['NOERROR', []]);
  expect(datas(await udp('2.9.0.127.in-addr.arpa', 'PTR'))).toEqual(['NOERROR', ['web.front']]);
});

test('other networks are not visible; unknown names go upstream (none answering here: SERVFAIL)', async () => {
  recs[0].HostConfig.Dns = ['127.0.0.2']; // nothing listens there; the forward gives up after 2 s
  expect(datas(await udp('db', 'A'))).toEqual('timeout'); // still waiting on the upstream after 300 ms
}, 10_000);

test('unknown clients are refused; a packet that is not DNS gets no answer', async () => {
  expect(datas(await udp('web', 'A', '127.0.9.77'))).toEqual(['REFUSED', []]);
  expect(await udp('', 'A', '127.0.9.1', Buffer.from('not dns'))).toBe('timeout');
});

test('an extra name source answers after the containers, and can be removed', async () => {
  const remove = dns.addSource({ resolve: (name, client) => (name === 'svc' && client.networkIds.includes(A) ? { v4: ['10.0.0.5'], v6: [] } : undefined) });
  expect(datas(await udp('svc', 'A'))).toEqual(['NOERROR', ['10.0.0.5']]);
  remove();
  recs[0].HostConfig.Dns = [];
  expect(datas(await udp('svc', 'A'))).not.toEqual(['NOERROR', ['10.0.0.5']]);
}, 10_000);

test('TCP: two length-prefixed queries on one connection', async () => {
  const s = net.connect({ port: ports.tcp, host: '127.0.0.1', localAddress: '127.0.9.1' });
  const q = (id: number, name: string) => dnsPacket.streamEncode({ type: 'query', id, flags: 0, questions: [{ type: 'A', name }] });
  s.on('connect', () => s.write(Buffer.concat([q(1, 'web'), q(2, 'client')])));
  let buf = Buffer.alloc(0);
  const got: [number, unknown][] = await new Promise((resolve) => {
    const out: [number, unknown][] = [];
    s.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
        const p = dnsPacket.decode(buf.subarray(2, 2 + buf.readUInt16BE(0))) as Decoded;
        buf = buf.subarray(2 + buf.readUInt16BE(0));
        out.push([p.id!, p.answers![0].data]);
        if (out.length === 2) resolve(out);
      }
    });
  });
  s.destroy();
  expect(got.sort()).toEqual([[1, '127.0.9.2'], [2, '127.0.9.1']]);
});

test('ptrAddress', () => {
  expect(ptrAddress('4.3.2.1.in-addr.arpa')).toBe('1.2.3.4');
  expect(ptrAddress('x.in-addr.arpa')).toBeUndefined();
});
