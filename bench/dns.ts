// Embedded DNS benchmark (a script, not a test; docs/dns.md): berth's resolver (DnsService + DnsServer, the code
// the daemon runs) over a synthetic store of containers on one network, queried from this host:
// - latency of a local name (A), UDP and TCP (one connection per query, as glibc's fallback does), p50/p99;
// - the memory one network's listener pair costs (RSS and heap, 1000 networks opened on 127.1.x.y).
// The in-container path adds one DNAT in the container's netns (not measured here).
// Run: npm run bench:dns [containers]
import * as dgram from 'node:dgram';
import * as net from 'node:net';
import * as dnsPacket from 'dns-packet';
import { silentLogger } from '../src/log';
import { DnsService } from '../src/services/dns';
import type { NetworkService } from '../src/services/networks';
import type { ContainerStore } from '../src/store/containers';
import type { ContainerRecord } from '../src/types/container';

const N = Number(process.argv[2] ?? 500);
const NET = 'n'.repeat(64);
const ip = (i: number) => `127.0.${1 + Math.floor(i / 250)}.${1 + (i % 250)}`;
const recs = Array.from({ length: N }, (_, i) => ({
  Id: i.toString(16).padStart(64, '0'),
  Name: `/c${i}`,
  State: { Running: true },
  HostConfig: { Dns: ['127.0.0.1'] },
  Networks: { bench: { NetworkID: NET, Aliases: [`alias${i}`], IPAMConfig: null, Links: null } },
  Endpoints: { bench: { network: 'bench', networkId: NET, ifname: 'eth0', ip: ip(i), prefixLen: 8, gateway: '127.0.0.1', mac: '', ports: {}, mappings: [] } },
})) as unknown as ContainerRecord[];
const store = { all: () => recs } as unknown as ContainerStore;
const network = { Id: NET, Name: 'bench', Driver: 'bridge', Predefined: false, Internal: false };
const networks = { tryFind: (r: string) => (r === NET || r === 'bench' ? network : undefined) } as unknown as NetworkService;

const q = (name: string) => dnsPacket.encode({ type: 'query', id: 1, flags: dnsPacket.RECURSION_DESIRED, questions: [{ type: 'A', name }] });
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

async function udpLatency(port: number, from: string, count: number): Promise<number[]> {
  const s = dgram.createSocket('udp4');
  await new Promise<void>((r) => s.bind(0, from, () => r()));
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const t0 = process.hrtime.bigint();
    await new Promise<void>((resolve) => {
      s.once('message', () => resolve());
      s.send(q(`c${i % N}`), port, '127.0.0.1');
    });
    out.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  s.close();
  return out;
}

async function tcpLatency(port: number, from: string, count: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const t0 = process.hrtime.bigint();
    await new Promise<void>((resolve, reject) => {
      const s = net.connect({ port, host: '127.0.0.1', localAddress: from });
      s.on('error', reject);
      s.on('connect', () => s.write(dnsPacket.streamEncode(dnsPacket.decode(q(`alias${i % N}`)))));
      s.on('data', () => {
        s.destroy();
        resolve();
      });
    });
    out.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return out;
}

async function main(): Promise<void> {
  const dns = new DnsService({ store, networks, logger: silentLogger() });
  const l = await dns.server.ensure(NET, '127.0.0.1');
  const from = ip(N - 1); // the client is the last container
  await udpLatency(l.udp, from, 500); // warm-up
  const udp = await udpLatency(l.udp, from, 5000);
  const tcp = await tcpLatency(l.tcp, from, 2000);
  console.log(`containers on the network: ${N}`);
  console.log(`UDP A query: p50 ${pct(udp, 0.5).toFixed(3)} ms, p99 ${pct(udp, 0.99).toFixed(3)} ms (5000 queries)`);
  console.log(`TCP A query (connect + query): p50 ${pct(tcp, 0.5).toFixed(3)} ms, p99 ${pct(tcp, 0.99).toFixed(3)} ms (2000 queries)`);

  global.gc?.();
  const before = process.memoryUsage();
  const NETS = 1000;
  for (let i = 0; i < NETS; i++) await dns.server.ensure(`net${i}`, `127.1.${Math.floor(i / 250)}.${1 + (i % 250)}`);
  global.gc?.();
  const after = process.memoryUsage();
  console.log(`memory per network (listener pair, ${NETS} networks): RSS ${((after.rss - before.rss) / NETS / 1024).toFixed(1)} KiB, heap ${((after.heapUsed - before.heapUsed) / NETS / 1024).toFixed(1)} KiB`);
  await dns.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
