// daemon.json insecure-registries acted on through the real bin/berthd (docs/operations.md), as the engine's: a
// registry named in the list, or whose address is in a listed CIDR, is tried over HTTPS without certificate
// verification and then over plain HTTP; any other registry is HTTPS with the host's CAs, except 127.0.0.0/8, which
// is insecure by default. A SIGHUP changes the list for the next push or pull, and /info's RegistryConfig shows it.
// The registries listen on a non-loopback address of this machine: a bridge of the test's own with 10.251.84.1.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { firstEvent, request } from '../helpers/berth';
import { berthdLauncher, type Berthd } from '../helpers/berthd-process';
import { buildBusyboxImage } from '../helpers/busybox-image';
import { startRegistry, TestRegistry } from '../helpers/registry';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-insec-'));
const namespace = `berth-insec-${process.pid}`;
const { berthd, stop, cleanup } = berthdLauncher({ dir, namespace, bridge: `bis${process.pid % 10000}`, subnet: '10.251.85.0/24' });
const file = path.join(dir, 'daemon.json');
const socket = path.join(dir, 'berth.sock');
const AUTH = { 'X-Registry-Auth': 'e30=' };
const LINK = `bir${process.pid % 10000}`;
const IP = '10.251.84.1';

let plain: TestRegistry; // HTTP on 10.251.84.1
let tls: TestRegistry; // HTTPS with a self-signed certificate on 10.251.84.1
let loopTls: TestRegistry; // HTTPS with a self-signed certificate on 127.0.0.1
let b: Berthd;

beforeAll(async () => {
  execFileSync('ip', ['link', 'add', LINK, 'type', 'bridge']);
  execFileSync('ip', ['addr', 'add', `${IP}/24`, 'dev', LINK]);
  execFileSync('ip', ['link', 'set', LINK, 'up']);
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=berth-insecure-test', '-addext', `subjectAltName=IP:${IP},IP:127.0.0.1`], { stdio: 'ignore' });
  [plain, tls, loopTls] = await Promise.all([startRegistry({ ip: IP }), startRegistry({ ip: IP, tls: { cert, key } }), startRegistry({ tls: { cert, key } })]);
  fs.writeFileSync(file, '{}');
  b = await berthd(['-H', `unix://${socket}`, '--config-file', file], { socket });
  expect((await request(socket, 'POST', '/v1.24/images/load?quiet=1', { body: await buildBusyboxImage({ tags: ['insec:1'] }) })).status).toBe(200);
}, 60_000);

afterAll(async () => {
  if (b) await stop(b);
  await Promise.all([plain, tls, loopTls].map((r) => r?.close()));
  try {
    execFileSync('ip', ['link', 'delete', LINK], { stdio: 'ignore' });
  } catch {
    /* not made */
  }
  await cleanup();
}, 60_000);

/** The errors of a push of busybox to `host` (an empty list when it worked). */
async function push(host: string): Promise<string[]> {
  const ref = `${host}/insec/busybox`;
  expect((await request(socket, 'POST', `/v1.24/images/insec:1/tag?repo=${ref}&tag=v1`)).status).toBe(201);
  const r = await request(socket, 'POST', `/v1.24/images/${ref}/push?tag=v1`, { headers: AUTH });
  expect(r.status).toBe(200);
  const out = r.body
    .toString()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { error?: string });
  return out.filter((l) => l.error).map((l) => l.error!);
}

async function reload(content: Record<string, unknown>): Promise<Record<string, string>> {
  const seen = firstEvent(socket, { type: ['daemon'] });
  await seen.subscribed;
  fs.writeFileSync(file, JSON.stringify(content));
  process.kill(b.child.pid!, 'SIGHUP');
  return (await seen.event).Actor.Attributes;
}

test('unlisted non-loopback registries are HTTPS with verification; loopback is insecure by default', async () => {
  // a plain HTTP registry is not spoken to over HTTP, a self-signed one is refused
  const a = await push(plain.host);
  expect(a).toHaveLength(1);
  expect(a[0]).toContain(`https://${plain.host}/v2/`);
  const t = await push(tls.host);
  expect(t).toHaveLength(1);
  expect(t[0]).toMatch(/self[- ]signed certificate/);
  // 127.0.0.0/8: HTTPS without verification
  expect(await push(loopTls.host)).toEqual([]);
  const info = (await request(socket, 'GET', '/v1.24/info')).json();
  expect(info.RegistryConfig.InsecureRegistryCIDRs).toEqual(['127.0.0.0/8']);
}, 60_000);

test('a listed host:port is tried over HTTPS without verification, then plain HTTP; a CIDR holding the address too; SIGHUP changes the list', async () => {
  expect(await reload({ 'insecure-registries': [plain.host] })).toMatchObject({ 'insecure-registries': JSON.stringify([plain.host]) });
  // plain HTTP after the HTTPS attempt fails
  expect(await push(plain.host)).toEqual([]);
  // another registry on the same address stays verified
  expect((await push(tls.host))[0]).toMatch(/self[- ]signed certificate/);
  let info = (await request(socket, 'GET', '/v1.24/info')).json();
  expect(info.RegistryConfig.IndexConfigs[plain.host]).toEqual({ Name: plain.host, Mirrors: [], Secure: false, Official: false });
  expect(info.RegistryConfig.IndexConfigs[tls.host]).toBeUndefined();

  // a CIDR: every registry whose address it holds is insecure (HTTPS unverified for the TLS one, HTTP for the other)
  await reload({ 'insecure-registries': ['10.251.84.0/24'] });
  expect(await push(tls.host)).toEqual([]);
  expect(await push(plain.host)).toEqual([]);
  info = (await request(socket, 'GET', '/v1.24/info')).json();
  expect(info.RegistryConfig.InsecureRegistryCIDRs).toEqual(['10.251.84.0/24', '127.0.0.0/8']);
  // and pulls: both back from their registries
  for (const host of [tls.host, plain.host]) {
    expect((await request(socket, 'DELETE', `/v1.24/images/${host}/insec/busybox:v1`)).status).toBe(200);
    const r = await request(socket, 'POST', `/v1.24/images/create?fromImage=${host}/insec/busybox&tag=v1`, { headers: AUTH });
    const out = r.body.toString().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { error?: string; status?: string });
    expect(out.filter((l) => l.error)).toEqual([]);
    expect(out.at(-1)?.status).toContain(`for ${host}/insec/busybox:v1`);
  }

  // back to an empty list: verified again
  await reload({ 'insecure-registries': [] });
  expect((await push(tls.host))[0]).toMatch(/self[- ]signed certificate/);
}, 90_000);
