// The embedded resolver (docs/dns.md): 127.0.0.11 in containers on user-defined networks answers their peers'
// names, aliases, short ids and links over UDP and TCP, sees changes at once, keeps networks apart, and forwards
// other names to the container's upstream servers (a tiny DNS server the test runs on 127.53.x.y).
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import type { TestBerth } from '../helpers/berth';
import { startUpstream, Upstream } from '../helpers/dns-upstream';
import { berthWithBusybox } from '../helpers/suite';

const execFileP = promisify(execFile);
const berth = berthWithBusybox();
let b: TestBerth;
let up: Upstream;
beforeAll(async () => {
  b = berth();
  up = await startUpstream({ 'upstream.example': '192.0.2.7' });
});
afterAll(() => up?.close());

const run = (args: string[]) => b.docker(args, { apiVersion: '1.24' });
const idOf = async (name: string): Promise<string> => (await b.request('GET', `/v1.24/containers/${name}/json`)).json().Id;

/** busybox nslookup against 127.0.0.11 in a container: the addresses it printed for the name, or 'NXDOMAIN'. */
const lookups = (names: string[]) =>
  names.map((n) => `echo "== ${n}"; out=$(nslookup ${n} 2>&1); if echo "$out" | grep -q NXDOMAIN; then echo NXDOMAIN; else echo "$out" | sed -n '/^Name:/,$p' | grep -o 'Address.*'; fi`).join('; ');
function parse(out: string): Record<string, string[]> {
  const r: Record<string, string[]> = {};
  let cur = '';
  for (const line of out.split('\n')) {
    const m = /^== (.*)$/.exec(line);
    if (m) r[(cur = m[1])] = [];
    else if (cur && line.trim()) r[cur].push(line.includes('NXDOMAIN') ? 'NXDOMAIN' : line.replace(/^Address( \d+)?:\s*/, '').trim());
  }
  return r;
}

/** A query over TCP (or UDP) to 127.0.0.11 from inside the container's network namespace, with node's own client. */
async function queryFromNetns(id: string, name: string, tcp: boolean): Promise<{ rcode: string; answers: string[]; ms: number }> {
  const script = `
    const dnsPacket = require('dns-packet'); const net = require('net'); const dgram = require('dgram');
    const q = { type: 'query', id: 7, flags: dnsPacket.RECURSION_DESIRED, questions: [{ type: 'A', name: ${JSON.stringify(name)} }] };
    const t0 = process.hrtime.bigint();
    const done = (m) => { const p = dnsPacket.decode(m); console.log(JSON.stringify({ rcode: p.rcode, answers: p.answers.map((a) => a.data), ms: Number(process.hrtime.bigint() - t0) / 1e6 })); process.exit(0); };
    setTimeout(() => { console.log('timeout'); process.exit(1); }, 5000);
    if (${tcp}) { const s = net.connect(53, '127.0.0.11'); let b = Buffer.alloc(0); s.on('connect', () => s.write(dnsPacket.streamEncode(q)));
      s.on('data', (d) => { b = Buffer.concat([b, d]); if (b.length >= 2 + b.readUInt16BE(0)) done(b.subarray(2, 2 + b.readUInt16BE(0))); }); }
    else { const s = dgram.createSocket('udp4'); s.on('message', done); s.send(dnsPacket.encode(q), 53, '127.0.0.11'); }`;
  const { stdout } = await execFileP('nsenter', [`--net=/var/run/netns/berth-${id.slice(0, 16)}`, process.execPath, '-e', script], { cwd: path.join(__dirname, '../..') });
  return JSON.parse(stdout);
}

describe('embedded DNS', () => {
  test('resolv.conf as the reference writes it; names, aliases, short ids and links resolve; other names are forwarded; UDP and TCP', async () => {
    expect((await run(['network', 'create', 'dnsa'])).code).toBe(0);
    expect((await run(['run', '-d', '--name', 'web', '--net', 'dnsa', '--network-alias', 'www', '--dns', up.address, 'busybox', 'sleep', '300'])).code).toBe(0);
    const web = await idOf('web');
    const webIp = (await b.request('GET', '/v1.24/containers/web/json')).json().NetworkSettings.Networks.dnsa.IPAddress;

    const conf = await run(['run', '--rm', '--net', 'dnsa', 'busybox', 'cat', '/etc/resolv.conf']);
    expect(conf.stdout).toBe('nameserver 127.0.0.11\noptions ndots:0\n');
    const conf2 = await run(['run', '--rm', '--net', 'dnsa', '--dns', '10.0.0.1', '--dns-search', 'foo.com', '--dns-opt', 'ndots:2', 'busybox', 'cat', '/etc/resolv.conf']);
    expect(conf2.stdout).toBe('search foo.com\nnameserver 127.0.0.11\noptions ndots:2\n');

    const r = await run(['run', '--rm', '--net', 'dnsa', '--dns', up.address, '--link', 'web:webby', 'busybox', 'sh', '-c', lookups(['web', 'WWW', web.slice(0, 12), 'webby', 'web.dnsa', 'upstream.example', 'nothing.example'])]);
    expect(parse(r.stdout)).toEqual({
      web: [webIp],
      WWW: [webIp],
      [web.slice(0, 12)]: [webIp],
      webby: [webIp],
      'web.dnsa': [webIp],
      'upstream.example': ['192.0.2.7'],
      'nothing.example': ['NXDOMAIN'],
    });

    // TCP and UDP from the container's own namespace; its own name too
    const before = { ...up.queries };
    expect(await queryFromNetns(web, 'web', true)).toMatchObject({ rcode: 'NOERROR', answers: [webIp] });
    expect(await queryFromNetns(web, 'www', false)).toMatchObject({ rcode: 'NOERROR', answers: [webIp] });
    expect(await queryFromNetns(web, 'upstream.example', true)).toMatchObject({ rcode: 'NOERROR', answers: ['192.0.2.7'] });
    expect(up.queries.tcp).toBe(before.tcp + 1);
    expect(await queryFromNetns(web, 'upstream.example', false)).toMatchObject({ rcode: 'NOERROR', answers: ['192.0.2.7'] });
    expect(up.queries.udp).toBe(before.udp + 1);
  });

  test('updates are immediate, networks are kept apart, connect adds names, and berth restarts with the resolver working', async () => {
    expect((await run(['network', 'create', 'dnsb'])).code).toBe(0);
    expect((await run(['run', '-d', '--name', 'asker', '--net', 'dnsb', '--dns', up.address, 'busybox', 'sleep', '300'])).code).toBe(0);
    const asker = await idOf('asker');
    expect(await queryFromNetns(asker, 'late', false)).toMatchObject({ rcode: 'NXDOMAIN' });
    expect((await run(['run', '-d', '--name', 'late', '--net', 'dnsb', 'busybox', 'sleep', '300'])).code).toBe(0);
    const lateIp = (await b.request('GET', '/v1.24/containers/late/json')).json().NetworkSettings.Networks.dnsb.IPAddress;
    expect(await queryFromNetns(asker, 'late', false)).toMatchObject({ rcode: 'NOERROR', answers: [lateIp] });
    // web lives on dnsa only: not visible from dnsb until asker is connected there
    expect((await queryFromNetns(asker, 'web', false)).rcode).toBe('NXDOMAIN');
    expect((await run(['network', 'connect', 'dnsa', 'asker'])).code).toBe(0);
    const webIp = (await b.request('GET', '/v1.24/containers/web/json')).json().NetworkSettings.Networks.dnsa.IPAddress;
    expect(await queryFromNetns(asker, 'web', false)).toMatchObject({ rcode: 'NOERROR', answers: [webIp] });
    expect((await run(['network', 'disconnect', 'dnsa', 'asker'])).code).toBe(0);
    expect((await queryFromNetns(asker, 'web', false)).rcode).toBe('NXDOMAIN');

    await b.restart();
    expect(await queryFromNetns(asker, 'late', true)).toMatchObject({ rcode: 'NOERROR', answers: [lateIp] });
    expect((await run(['rm', '-f', 'late'])).code).toBe(0);
    expect((await queryFromNetns(asker, 'late', false)).rcode).toBe('NXDOMAIN');
    expect((await run(['rm', '-f', 'asker', 'web'])).code).toBe(0);
    expect((await run(['network', 'rm', 'dnsa', 'dnsb'])).code).toBe(0);
  });
});
