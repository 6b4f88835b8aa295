// A tiny upstream DNS server for tests (UDP and TCP on 127.x.y.z:53): answers A records from a table, NXDOMAIN
// otherwise, and counts the queries it got per transport.
import * as dgram from 'node:dgram';
import * as net from 'node:net';
import * as dnsPacket from 'dns-packet';

export interface Upstream {
  address: string;
  queries: { udp: number; tcp: number };
  close(): Promise<void>;
}

function answer(msg: Buffer, table: Record<string, string>): Buffer {
  const q = dnsPacket.decode(msg);
  const name = q.questions?.[0]?.name ?? '';
  const ip = table[name.toLowerCase()];
  return dnsPacket.encode({
    id: q.id,
    type: 'response',
    flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | (ip ? 0 : 3), // NXDOMAIN: rcode 3 in the flags' low bits
    questions: q.questions,
    answers: ip && q.questions![0].type === 'A' ? [{ name, type: 'A', class: 'IN', ttl: 30, data: ip }] : [],
  } as dnsPacket.Packet);
}

export async function startUpstream(table: Record<string, string>): Promise<Upstream> {
  const address = `127.53.${1 + Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;
  const queries = { udp: 0, tcp: 0 };
  const udp = dgram.createSocket('udp4');
  udp.on('message', (m, r) => {
    queries.udp++;
    udp.send(answer(m, table), r.port, r.address);
  });
  await new Promise<void>((resolve, reject) => {
    udp.once('error', reject);
    udp.bind(53, address, () => resolve());
  });
  const conns = new Set<net.Socket>();
  const tcp = net.createServer((s) => {
    conns.add(s);
    s.on('close', () => conns.delete(s));
    let buf = Buffer.alloc(0);
    s.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      if (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
        queries.tcp++;
        const out = answer(buf.subarray(2, 2 + buf.readUInt16BE(0)), table);
        const len = Buffer.alloc(2);
        len.writeUInt16BE(out.length);
        s.end(Buffer.concat([len, out]));
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    tcp.once('error', reject);
    tcp.listen(53, address, () => resolve());
  });
  return {
    address,
    queries,
    async close() {
      udp.close();
      for (const c of conns) c.destroy();
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
    },
  };
}
