// daemon.json's registry keys acted on through the real bin/berthd (docs/operations.md): max-concurrent-downloads and
// max-concurrent-uploads bound the layers a pull fetches and a push uploads at once, and a SIGHUP changes them for the
// next pull or push; registry-mirrors serve docker.io pulls before the hub. A proxy in front of a local docker-registry counts the blob requests in flight (each held 150 ms
// so that the ones a pull or push starts together overlap).
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { firstEvent, request } from '../helpers/berth';
import { berthdLauncher } from '../helpers/berthd-process';
import { buildBusyboxImage } from '../helpers/busybox-image';
import { freePort, startRegistry, TestRegistry } from '../helpers/registry';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-rdj-'));
const namespace = `berth-rdj-${process.pid}`;
const { berthd, stop, cleanup } = berthdLauncher({ dir, namespace, bridge: `brj${process.pid % 10000}`, subnet: '10.251.77.0/24' });
const file = path.join(dir, 'daemon.json');
const socket = path.join(dir, 'berth.sock');
const AUTH = { 'X-Registry-Auth': 'e30=' };

/** An HTTP proxy to a registry that counts the blob requests in flight. */
interface CountingProxy {
  host: string;
  maxInFlight: number;
  blobRequests: number;
  close(): Promise<void>;
}
async function countingProxy(target: string): Promise<CountingProxy> {
  let inFlight = 0;
  const server = http.createServer((req, res) => {
    const blob = /\/blobs\//.test(req.url ?? '');
    if (blob) {
      inFlight++;
      p.blobRequests++;
      p.maxInFlight = Math.max(p.maxInFlight, inFlight);
    }
    let done = false;
    const end = () => {
      if (blob && !done) inFlight--;
      done = true;
    };
    res.on('close', end);
    setTimeout(
      () => {
        const [h, port] = target.split(':');
        const up = http.request({ host: h, port: Number(port), method: req.method, path: req.url, headers: req.headers }, (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        });
        up.on('error', () => res.destroy());
        req.pipe(up);
      },
      blob ? 150 : 0,
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const p: CountingProxy = {
    host: `127.0.0.1:${(server.address() as import('node:net').AddressInfo).port}`,
    maxInFlight: 0,
    blobRequests: 0,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
  return p;
}

let registry: TestRegistry;
let proxy: CountingProxy;
beforeAll(async () => {
  registry = await startRegistry();
  proxy = await countingProxy(registry.host);
});
afterAll(async () => {
  await proxy?.close();
  await registry?.close();
  await cleanup();
});

const lines = (body: Buffer) =>
  body
    .toString()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, any>);

/** Pull or push through the proxy; the blob requests' most in flight at once. */
async function measured(method: string, url: string): Promise<number> {
  proxy.maxInFlight = 0;
  proxy.blobRequests = 0;
  const r = await request(socket, method, url, { headers: AUTH });
  expect(r.status).toBe(200);
  const out = lines(r.body);
  expect({ url, errors: out.filter((l) => l.error) }).toEqual({ url, errors: [] });
  expect(proxy.blobRequests).toBeGreaterThanOrEqual(6);
  return proxy.maxInFlight;
}

async function removeAllImages(): Promise<void> {
  const imgs = (await request(socket, 'GET', '/v1.24/images/json')).json() as { Id: string }[];
  for (const i of imgs) expect((await request(socket, 'DELETE', `/v1.24/images/${i.Id}?force=1`)).status).toBe(200);
}

test('max-concurrent-downloads and -uploads bound a pull and a push; SIGHUP changes them for the next', async () => {
  fs.writeFileSync(file, JSON.stringify({ 'max-concurrent-downloads': 1, 'max-concurrent-uploads': 2 }));
  const b = await berthd(['-H', `unix://${socket}`, '--config-file', file], { socket });
  expect((await request(socket, 'POST', '/v1.24/images/load?quiet=1', { body: await buildBusyboxImage({ tags: ['rdj:0'] }) })).status).toBe(200);
  // six layers: busybox and five commits over it
  for (let i = 1; i <= 5; i++) {
    const c = (await request(socket, 'POST', '/v1.24/containers/create', { body: { Image: `rdj:${i - 1}`, Cmd: ['sh', '-c', `echo ${i} > /f${i}`], HostConfig: { NetworkMode: 'none' } } })).json();
    expect((await request(socket, 'POST', `/v1.24/containers/${c.Id}/start`)).status).toBe(204);
    await request(socket, 'POST', `/v1.24/containers/${c.Id}/wait`);
    expect((await request(socket, 'POST', `/v1.24/commit?container=${c.Id}&repo=rdj&tag=${i}`)).status).toBe(201);
    await request(socket, 'DELETE', `/v1.24/containers/${c.Id}?force=1`);
  }
  const ref = `${proxy.host}/rdj/multi`;
  expect((await request(socket, 'POST', `/v1.24/images/rdj:5/tag?repo=${ref}&tag=v1`)).status).toBe(201);

  expect(await measured('POST', `/v1.24/images/${ref}/push?tag=v1`)).toBe(2);
  await removeAllImages();
  expect(await measured('POST', `/v1.24/images/create?fromImage=${ref}&tag=v1`)).toBe(1);

  const seen = firstEvent(socket, { type: ['daemon'] });
  await seen.subscribed;
  fs.writeFileSync(file, JSON.stringify({ 'max-concurrent-downloads': 4, 'max-concurrent-uploads': 1 }));
  process.kill(b.child.pid!, 'SIGHUP');
  expect((await seen.event).Actor.Attributes).toMatchObject({ 'max-concurrent-downloads': '4', 'max-concurrent-uploads': '1' });
  // a push to another repository of the same registry: each layer's existence check and mount, one layer at a time
  expect((await request(socket, 'POST', `/v1.24/images/${ref}:v1/tag?repo=${proxy.host}/rdj/other&tag=v1`)).status).toBe(201);
  expect(await measured('POST', `/v1.24/images/${proxy.host}/rdj/other/push?tag=v1`)).toBe(1);
  await removeAllImages();
  expect(await measured('POST', `/v1.24/images/create?fromImage=${ref}&tag=v1`)).toBe(4);

  // unset keys are back to the engine's defaults at the next reload: 3 and 5
  const again = firstEvent(socket, { type: ['daemon'] });
  await again.subscribed;
  fs.writeFileSync(file, '{}');
  process.kill(b.child.pid!, 'SIGHUP');
  expect((await again.event).Actor.Attributes).toMatchObject({ 'max-concurrent-downloads': '3', 'max-concurrent-uploads': '5' });
  await removeAllImages();
  expect(await measured('POST', `/v1.24/images/create?fromImage=${ref}&tag=v1`)).toBe(3);
  await removeAllImages();
  await stop(b);
});

test('registry-mirrors: a docker.io pull tries each mirror in turn, then the hub; other registries are not mirrored', async () => {
  const closed = `127.0.0.1:${await freePort()}`;
  fs.writeFileSync(file, JSON.stringify({ 'registry-mirrors': [`http://${closed}`, `http://${registry.host}`] }));
  const b = await berthd(['-H', `unix://${socket}`, '--config-file', file], { socket });
  expect((await request(socket, 'POST', '/v1.24/images/load?quiet=1', { body: await buildBusyboxImage({ tags: ['rdj:0'] }) })).status).toBe(200);
  // the mirror holds library/busybox (pushed to it as a registry of its own)
  expect((await request(socket, 'POST', `/v1.24/images/rdj:0/tag?repo=${registry.host}/library/busybox&tag=latest`)).status).toBe(201);
  const push = await request(socket, 'POST', `/v1.24/images/${registry.host}/library/busybox/push?tag=latest`, { headers: AUTH });
  expect(lines(push.body).filter((l) => l.error)).toEqual([]);
  await removeAllImages();
  // the first mirror refuses the connection: the second serves the pull (the hub is not reachable from here)
  const pull = await request(socket, 'POST', '/v1.24/images/create?fromImage=busybox&tag=latest', { headers: AUTH });
  const out = lines(pull.body);
  expect(out.filter((l) => l.error)).toEqual([]);
  expect(out.at(-1)).toEqual({ status: 'Status: Downloaded newer image for busybox:latest' });
  const imgs = (await request(socket, 'GET', '/v1.24/images/json')).json() as { RepoTags: string[] }[];
  expect(imgs.flatMap((i) => i.RepoTags)).toEqual(['busybox:latest']);
  // a mirror serves docker.io only: a pull from another registry (here one that does not answer) is not mirrored
  const other = await request(socket, 'POST', `/v1.24/images/create?fromImage=${closed}/library/busybox&tag=latest`, { headers: AUTH });
  expect(other.body.toString()).toContain(closed);
  await removeAllImages();
  await stop(b);
});
