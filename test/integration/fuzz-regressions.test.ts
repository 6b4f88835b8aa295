// Regressions for the findings of issue 19's fuzz run (10,000 seeded malformed requests): each request as the fuzzer
// sent it, with the reference engine's answer (a 500 of the reference for a client's mistake is a 400 here).
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as tar from 'tar-stream';
import * as containerApi from '../../src/containerd/containers';
import * as snapshotApi from '../../src/containerd/snapshots';
import { isGrpcNotFound } from '../../src/containerd/errors';
import type { TestBerth } from '../helpers/berth';
import { berthWithBusybox } from '../helpers/suite';

const berth = berthWithBusybox();
let b: TestBerth;
beforeAll(() => {
  b = berth();
});

const J = (r: { status: number; text: string }) => [r.status, r.text ? JSON.parse(r.text).message : undefined];

test('names, labels, tags and filter values that are JavaScript object keys', async () => {
  for (const n of ['toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', 'constructor']) {
    const r = await b.request('POST', `/v1.24/containers/create?name=${n}`, { body: { Image: 'busybox', Cmd: ['true'], Labels: { [n]: n, __proto__x: 'y' }, HostConfig: { NetworkMode: 'none' } } });
    expect([n, r.status]).toEqual([n, 201]);
    expect((await b.request('GET', `/v1.24/containers/${n}/json`)).json().Name).toBe(`/${n}`);
    const again = await b.request('POST', `/v1.24/containers/create?name=${n}`, { body: { Image: 'busybox', HostConfig: { NetworkMode: 'none' } } });
    expect(again.status).toBe(409);
    const byLabel = (await b.request('GET', `/v1.24/containers/json?all=1&filters=${encodeURIComponent(JSON.stringify({ label: [n] }))}`)).json();
    expect(byLabel.map((c: { Names: string[] }) => c.Names[0])).toEqual([`/${n}`]);
  }
  expect(J(await b.request('POST', '/v1.24/containers/create?name=__proto__', { body: { Image: 'busybox' } }))).toEqual([400, 'Invalid container name (__proto__), only [a-zA-Z0-9][a-zA-Z0-9_.-] are allowed']);
  expect((await b.request('GET', '/v1.24/containers/__proto__/json')).status).toBe(404);
  for (const f of [{ label: ['__proto__'] }, { name: ['constructor'] }, { label: ['constructor=x'] }]) {
    expect((await b.request('GET', `/v1.24/containers/json?all=1&filters=${encodeURIComponent(JSON.stringify(f))}`)).status).toBe(200);
  }
  expect((await b.request('POST', '/v1.24/images/busybox/tag?repo=constructor&tag=valueof')).status).toBe(201);
  expect((await b.request('GET', '/v1.24/images/constructor:valueof/json')).status).toBe(200);
  expect((await b.request('DELETE', '/v1.24/images/constructor:valueof')).status).toBe(200);
  for (const n of ['toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', 'constructor']) expect((await b.request('DELETE', `/v1.24/containers/${n}`)).status).toBe(204);
  // a network called valueOf: a container on it shows that network's endpoint, not Object.prototype's function
  const net = await b.request('POST', '/v1.24/networks/create', { body: { Name: 'valueOf', IPAM: { Config: [{ Subnet: '10.251.91.0/24' }] } } });
  expect(net.status).toBe(201);
  const c = (await b.request('POST', '/v1.24/containers/create', { body: { Image: 'busybox', Cmd: ['true'], HostConfig: { NetworkMode: 'valueOf' } } })).json().Id;
  const nets = (await b.request('GET', `/v1.24/containers/${c}/json`)).json().NetworkSettings.Networks;
  expect(Object.keys(nets)).toEqual(['valueOf']);
  expect(nets.valueOf).toMatchObject({ IPAMConfig: null, Links: null, Aliases: null, NetworkID: '' });
  expect((await b.request('DELETE', `/v1.24/containers/${c}`)).status).toBe(204);
  expect((await b.request('DELETE', '/v1.24/networks/valueOf')).status).toBe(204);
});

test('bad tags are refused at tag, commit and import; a stored bad name never breaks the image list', async () => {
  for (const t of [':', '-x', 'x@y', 'a'.repeat(200)]) {
    expect(J(await b.request('POST', `/v1.24/images/busybox/tag?repo=fz&tag=${encodeURIComponent(t)}`))).toEqual([400, 'invalid tag format']);
  }
  const c = (await b.request('POST', '/v1.24/containers/create', { body: { Image: 'busybox', Cmd: ['true'], HostConfig: { NetworkMode: 'none' } } })).json().Id;
  const before = (await b.request('GET', '/v1.24/images/json?all=1')).json().length;
  expect(J(await b.request('POST', `/v1.24/commit?container=${c}&repo=fz&tag=-x`))).toEqual([400, 'invalid tag format']);
  expect(J(await b.request('POST', '/v1.24/images/create?fromSrc=-&repo=fz&tag=-x', { body: Buffer.alloc(1024), headers: { 'Content-Type': 'application/x-tar' } }))).toEqual([400, 'invalid tag format']);
  expect((await b.request('GET', '/v1.24/images/json?all=1')).json()).toHaveLength(before);
  // a name the engine would refuse, stored by an older berth: the list leaves it out instead of failing
  const kept = (await b.daemon.ctr.images.Get({ name: 'docker.io/library/busybox:latest' })).image!;
  await b.daemon.ctr.images.Create({ image: { name: 'docker.io/library/fz:-x', labels: kept.labels, target: kept.target } });
  const list = await b.request('GET', '/v1.24/images/json');
  expect(list.status).toBe(200);
  expect(list.json().flatMap((i: { RepoTags: string[] }) => i.RepoTags)).toContain('busybox:latest');
  expect(list.text).not.toContain('fz:-x');
  await b.daemon.ctr.images.Delete({ name: 'docker.io/library/fz:-x', sync: false });
  await b.request('DELETE', `/v1.24/containers/${c}`);
});

test('DELETE /images/sha256%3A<id> removes the image', async () => {
  const pack = tar.pack();
  pack.entry({ name: 'hello.txt' }, 'fuzz\n');
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const c of pack) chunks.push(c as Buffer);
  const imp = await b.request('POST', '/v1.24/images/create?fromSrc=-&repo=fz-del&tag=1', { body: Buffer.concat(chunks), headers: { 'Content-Type': 'application/x-tar' } });
  expect(imp.status).toBe(200);
  const id = (await b.request('GET', '/v1.24/images/fz-del:1/json')).json().Id as string;
  const del = await b.request('DELETE', `/v1.24/images/${id.replace(':', '%3A')}`);
  expect(del.status).toBe(200);
  expect(del.json()).toEqual(expect.arrayContaining([{ Untagged: 'fz-del:1' }, { Deleted: id }]));
  expect((await b.request('GET', `/v1.24/images/${id}/json`)).status).toBe(404);
});

test("wrong-typed Volumes are refused with the engine's decoder message; nothing is created", async () => {
  const vols = (await b.request('GET', '/v1.24/volumes')).json().Volumes?.length ?? 0;
  const containers = (await b.request('GET', '/v1.24/containers/json?all=1')).json().length;
  expect(J(await b.request('POST', '/v1.24/containers/create', { body: { Image: 'busybox', Volumes: ['a', 'b', 'c'] } }))).toEqual([400, 'json: cannot unmarshal array into Go struct field ContainerConfigWrapper.Volumes of type map[string]struct {}']);
  expect(J(await b.request('POST', '/v1.24/containers/create', { body: { Image: 'busybox', Volumes: 'abc' } }))).toEqual([400, 'json: cannot unmarshal string into Go struct field ContainerConfigWrapper.Volumes of type map[string]struct {}']);
  expect((await b.request('GET', '/v1.24/volumes')).json().Volumes?.length ?? 0).toBe(vols);
  expect((await b.request('GET', '/v1.24/containers/json?all=1')).json()).toHaveLength(containers);
});

test('pause of a paused container, exec start in one, unpause of a running one: 409 with the reference messages', async () => {
  const id = (await b.request('POST', '/v1.24/containers/create', { body: { Image: 'busybox', Cmd: ['sleep', '60'], HostConfig: { NetworkMode: 'none' } } })).json().Id;
  expect((await b.request('POST', `/v1.24/containers/${id}/start`)).status).toBe(204);
  const exec = (await b.request('POST', `/v1.24/containers/${id}/exec`, { body: { Cmd: ['true'] } })).json().Id;
  expect((await b.request('POST', `/v1.24/containers/${id}/pause`)).status).toBe(204);
  const twice = await Promise.all([b.request('POST', `/v1.24/containers/${id}/pause`), b.request('POST', `/v1.24/containers/${id}/pause`)]);
  for (const r of twice) expect(J(r)).toEqual([409, `Container ${id} is already paused`]);
  expect(J(await b.request('POST', `/v1.24/exec/${exec}/start`, { body: { Detach: true } }))).toEqual([409, `Container ${id} is paused, unpause the container before exec`]);
  expect((await b.request('POST', `/v1.24/containers/${id}/unpause`)).status).toBe(204);
  expect(J(await b.request('POST', `/v1.24/containers/${id}/unpause`))).toEqual([409, `Container ${id} is not paused`]);
  expect((await b.request('DELETE', `/v1.24/containers/${id}?force=1`)).status).toBe(204);
});

test('networks: an empty create body and a gateway outside its subnet are 400 and leave GET /networks working', async () => {
  expect(J(await b.request('POST', '/v1.24/networks/create', { body: '', headers: { 'Content-Type': 'application/json' } }))).toEqual([400, 'got EOF while reading request body']);
  expect(J(await b.request('POST', '/v1.24/networks/create', { body: { Name: 'fz-net', IPAM: { Config: [{ Subnet: '10.77.0.0/24', Gateway: '10.78.0.1' }] } } }))).toEqual([400, 'failed to allocate gateway (10.78.0.1): Requested address is out of range']);
  expect(J(await b.request('POST', '/v1.24/networks/create', { body: {} }))).toEqual([400, 'invalid name: ']);
  const list = await b.request('GET', '/v1.24/networks');
  expect(list.status).toBe(200);
  expect(list.text).not.toContain('fz-net');
});

test("bodies nested deeper than Go's decoder allows: 400 with its message, on every JSON route", async () => {
  const deepArray = '['.repeat(10001) + ']'.repeat(10001);
  const deepLabels = `{"Image":"busybox","Labels":${'{"a":'.repeat(10001)}1${'}'.repeat(10001)}}`;
  for (const [path, body, ch] of [
    ['/v1.24/containers/create', deepArray, '['],
    ['/v1.24/containers/create', deepLabels, '{'],
    ['/v1.24/networks/create', deepLabels, '{'],
    ['/v1.24/volumes/create', deepArray, '['],
  ]) {
    expect(J(await b.request('POST', path, { body, headers: { 'Content-Type': 'application/json' } }))).toEqual([400, `invalid character '${ch}' exceeded max depth`]);
  }
  // a string full of brackets is not nesting
  const r = await b.request('POST', '/v1.24/volumes/create', { body: { Name: 'fz-vol', Labels: { x: '['.repeat(20000) } } });
  expect(r.status).toBe(201);
  expect((await b.request('DELETE', '/v1.24/volumes/fz-vol')).status).toBe(204);
});

test('a create killed before its record: its containerd container, snapshots and folder are collected at the next start', async () => {
  const id = crypto.randomBytes(32).toString('hex');
  const ctr = b.daemon.ctr;
  // what a SIGKILL between containerd's Create and the record's write leaves (the fault run found 2 containers, 2 snapshots)
  await containerApi.create(ctr, { id, image: 'docker.io/library/busybox:latest', labels: { 'berth.name': '/fz-orphan', 'berth.image': 'x' }, snapshotter: 'overlayfs', snapshotKey: id });
  await snapshotApi.prepare(ctr, 'overlayfs', `${id}-init-key`, '');
  await snapshotApi.prepare(ctr, 'overlayfs', id, '');
  fs.mkdirSync(path.join(b.config.dataRoot, 'containers', id));
  const kept = (await b.request('POST', '/v1.24/containers/create?name=fz-kept', { body: { Image: 'busybox', Cmd: ['true'], HostConfig: { NetworkMode: 'none' } } })).json().Id;
  await b.restart();
  const gone = (p: Promise<unknown>) => p.then(() => false, (err) => isGrpcNotFound(err));
  expect(await gone(b.daemon.ctr.containers.Get({ id }))).toBe(true);
  for (const key of [id, `${id}-init-key`]) expect(await gone(snapshotApi.stat(b.daemon.ctr, 'overlayfs', key))).toBe(true);
  expect(fs.existsSync(path.join(b.config.dataRoot, 'containers', id))).toBe(false);
  // a container with a record stays, with its snapshots
  expect((await b.request('GET', '/v1.24/containers/fz-kept/json')).status).toBe(200);
  await snapshotApi.stat(b.daemon.ctr, 'overlayfs', kept);
  expect((await b.request('DELETE', '/v1.24/containers/fz-kept')).status).toBe(204);
});

test('never left "Removal In Progress": a second remove is 409; a removal a SIGKILL interrupted is finished at start', async () => {
  const mk = async () => (await b.request('POST', '/v1.24/containers/create', { body: { Image: 'busybox', Cmd: ['true'], HostConfig: { NetworkMode: 'none' } } })).json().Id as string;
  const id = await mk();
  const both = await Promise.all([b.request('DELETE', `/v1.24/containers/${id}`), b.request('DELETE', `/v1.24/containers/${id}`)]);
  const answers = both.map((r) => `${r.status} ${r.text ? JSON.parse(r.text).message : ''}`).sort();
  expect(answers[0]).toBe('204 ');
  expect([`404 No such container: ${id}`, `409 removal of container ${id} is already in progress`]).toContain(answers[1]);
  expect((await b.request('GET', `/v1.24/containers/${id}/json`)).status).toBe(404);

  // a record written while its removal was under way, then berth killed
  const id2 = await mk();
  const file = path.join(b.config.dataRoot, 'containers', id2, 'config.v2.json');
  const rec = JSON.parse(fs.readFileSync(file, 'utf8'));
  rec.State.Status = 'removing';
  fs.writeFileSync(file, JSON.stringify(rec));
  await b.restart();
  expect((await b.request('GET', `/v1.24/containers/${id2}/json`)).status).toBe(404);
  expect((await b.request('GET', '/v1.24/containers/json?all=1')).text).not.toContain(id2);
  expect(await snapshotApi.stat(b.daemon.ctr, 'overlayfs', id2).then(() => 'kept', (err) => (isGrpcNotFound(err) ? 'gone' : String(err)))).toBe('gone');
});

test("a request naming a container whose create is still running is 404, never 500 (seed 7's 'reading State')", async () => {
  // The create reserves its name before it writes its record; requests by that name in between found no record.
  for (let round = 0; round < 3; round++) {
    const name = `racer${round}`;
    let created = false;
    const create = b.request('POST', `/v1.24/containers/create?name=${name}`, { body: { Image: 'busybox', Cmd: ['true'], HostConfig: { NetworkMode: 'none' } } }).finally(() => {
      created = true;
    });
    const seen = new Set<number>();
    while (!created) {
      for (const [m, p] of [['POST', `/v1.24/containers/${name}/kill`], ['GET', `/v1.24/containers/${name}/json`]] as const) seen.add((await b.request(m, p)).status);
    }
    expect((await create).status).toBe(201);
    expect([...seen].filter((s) => s >= 500)).toEqual([]);
    expect((await b.request('DELETE', `/v1.24/containers/${name}`)).status).toBe(204);
  }
});
