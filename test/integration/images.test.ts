import * as fs from 'node:fs';
import * as path from 'node:path';
import { startTestBerth, TestBerth } from '../helpers/berth';
import { buildBusyboxImage, loadBusybox } from '../helpers/busybox-image';
import { chainIds } from '../../src/services/image-format';

let b: TestBerth;
beforeAll(async () => {
  b = await startTestBerth();
});
afterAll(async () => {
  await b.close();
});

async function forceGC(): Promise<void> {
  const ctr = b.daemon.ctr;
  await ctr.leases.Create({ id: 'gc-trigger', labels: {} });
  await ctr.leases.Delete({ id: 'gc-trigger', sync: true });
}

async function leftovers(): Promise<{ leases: number; ingests: number }> {
  const ctr = b.daemon.ctr;
  const leases = (await ctr.leases.List({ filters: [] })).leases.length;
  const ingests = (await ctr.content.ListStatuses({ filters: [] })).statuses.length;
  return { leases, ingests };
}

describe('image load, list, inspect, remove against real containerd', () => {
  test('POST /images/load (docker-save) streams progress and the Loaded line; GC keeps what it unpacked', async () => {
    const archive = await buildBusyboxImage();
    const r = await b.request('POST', '/v1.24/images/load', { body: archive, headers: { 'Content-Type': 'application/x-tar' } });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json');
    const lines = r.text.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines[lines.length - 1]).toEqual({ stream: 'Loaded image: busybox:latest\n' });
    expect(lines.some((l) => l.status === 'Loading layer')).toBe(true);
    expect(await leftovers()).toEqual({ leases: 0, ingests: 0 });

    await forceGC();
    const img = (await b.request('GET', '/v1.24/images/busybox/json')).json();
    expect(img.RepoTags).toEqual(['busybox:latest']);
    // MergedDir as the engine names its top layer's 'merged' folder: a sibling of the layer's directories that
    // nothing mounts for an image.
    const gd = img.GraphDriver.Data;
    expect(gd.MergedDir).toBe(path.join(path.dirname(gd.UpperDir), 'merged'));
    expect(fs.existsSync(gd.MergedDir)).toBe(false);
    const chain = chainIds(img.RootFS.Layers);
    const st = await b.daemon.ctr.snapshots.Stat({ snapshotter: 'overlayfs', key: chain[chain.length - 1] });
    expect(st.info?.kind).toBe('COMMITTED');
  });

  test('quiet load and loading twice are idempotent; OCI layout archives load too', async () => {
    const archive = await buildBusyboxImage();
    const q = await b.request('POST', '/v1.24/images/load?quiet=1', { body: archive });
    expect(q.text).toBe('{"stream":"Loaded image: busybox:latest\\n"}\n');
    const oci = await buildBusyboxImage({ format: 'oci', tags: ['ocibox:v1'], gzip: true, config: { Labels: { oci: 'yes' } } });
    const o = await b.request('POST', '/v1.24/images/load?quiet=1', { body: oci });
    expect(o.text).toBe('{"stream":"Loaded image: ocibox:v1\\n"}\n');
    const list = (await b.request('GET', '/v1.24/images/json')).json();
    expect(list.map((i: { RepoTags: string[] }) => i.RepoTags[0]).sort()).toEqual(['busybox:latest', 'ocibox:v1']);
    // same layer content: the OCI image (gzip) and the docker one share the unpacked snapshot.
    expect(list[0].Size).toBeGreaterThan(1_000_000);
  });

  test('a corrupt archive reports the error inside the stream and leaks nothing', async () => {
    const r = await b.request('POST', '/v1.24/images/load', { body: Buffer.from('this is not a tar archive at all'.repeat(40)) });
    expect(r.status).toBe(200);
    const last = JSON.parse(r.text.trim().split('\n').pop()!);
    expect(last.error).toBeTruthy();
    expect(last.errorDetail.message).toBe(last.error);
    expect(await leftovers()).toEqual({ leases: 0, ingests: 0 });
    expect(fs.readdirSync(path.join(b.config.dataRoot, 'tmp'))).toEqual([]);
    expect((await b.request('GET', '/_ping')).status).toBe(200);
  });

  test('list shapes per version', async () => {
    const v18 = (await b.request('GET', '/v1.18/images/json')).json();
    expect(v18[0].Labels).toBeUndefined();
    // As the reference: RepoDigests at every version, asked for or not (the spec names it for `digests`, silent otherwise).
    expect(v18[0].RepoDigests).toBeNull();
    const v24 = (await b.request('GET', '/v1.24/images/json')).json();
    expect(v24[0]).toEqual(expect.objectContaining({ Labels: null, RepoDigests: null })); // as the reference: a tagged image with no digest
    expect(v24[0]).not.toHaveProperty('ParentId'); // the spec: absent for root images
    expect(v24[0].Id).toMatch(/^sha256:[a-f0-9]{64}$/);
    expect(typeof v24[0].Created).toBe('number');
    const filtered = (await b.request('GET', `/v1.24/images/json?filters=${encodeURIComponent('{"reference":["oci*"]}')}`)).json();
    expect(filtered.map((i: { RepoTags: string[] }) => i.RepoTags[0])).toEqual(['ocibox:v1']);
    const byName = (await b.request('GET', '/v1.20/images/json?filter=busybox')).json();
    expect(byName.map((i: { RepoTags: string[] }) => i.RepoTags[0])).toEqual(['busybox:latest']);
    expect((await b.request('GET', `/v1.24/images/json?filters=${encodeURIComponent('{"bogus":["x"]}')}`)).status).toBe(400);
  });

  test('inspect by name, id and short id; 404 with the engine message', async () => {
    const byName = (await b.request('GET', '/v1.24/images/busybox:latest/json')).json();
    const byId = (await b.request('GET', `/v1.24/images/${byName.Id}/json`)).json();
    const short = (await b.request('GET', `/v1.24/images/${byName.Id.slice(7, 19)}/json`)).json();
    expect(byId.Id).toBe(byName.Id);
    expect(short.Id).toBe(byName.Id);
    expect(byName.Config.Cmd).toEqual(['sh']);
    expect(byName.Os).toBe('linux');
    const nf = await b.request('GET', '/v1.24/images/nope/json');
    expect(nf.status).toBe(404);
    expect(nf.json()).toEqual({ message: 'no such image: nope: No such image: nope:latest' });
    const hist = (await b.request('GET', '/v1.24/images/busybox/history')).json();
    expect(hist[0]).toEqual(expect.objectContaining({ Id: byName.Id, Tags: ['busybox:latest'], CreatedBy: 'berth test helper: busybox-static' }));
  });

  test('tag, untag, delete and the multiple-repositories conflict', async () => {
    expect((await b.request('POST', '/v1.24/images/busybox/tag?repo=localhost:5000/mine&tag=v2')).status).toBe(201);
    expect((await b.request('POST', '/v1.24/images/busybox/tag?repo=Bad&tag=x')).json()).toEqual({ message: 'invalid reference format: repository name must be lowercase' });
    const img = (await b.request('GET', '/v1.24/images/localhost:5000/mine:v2/json')).json();
    expect(img.RepoTags.sort()).toEqual(['busybox:latest', 'localhost:5000/mine:v2']);
    const c = await b.request('DELETE', `/v1.24/images/${img.Id.slice(7, 19)}`);
    expect(c.status).toBe(409);
    expect(c.json().message).toBe(`conflict: unable to delete ${img.Id.slice(7, 19)} (must be forced) - image is referenced in multiple repositories`);
    expect((await b.request('DELETE', '/v1.24/images/localhost:5000/mine:v2')).json()).toEqual([{ Untagged: 'localhost:5000/mine:v2' }]);
    const del = (await b.request('DELETE', '/v1.24/images/ocibox:v1')).json();
    expect(del[0]).toEqual({ Untagged: 'ocibox:v1' });
    expect(del[1].Deleted).toMatch(/^sha256:/);
    expect((await b.request('GET', '/v1.24/images/ocibox:v1/json')).status).toBe(404);
    expect((await b.request('DELETE', '/v1.23/images/ocibox:v1')).text).toBe('No such image: ocibox:v1\n');
  });

  test('the docker CLI: load -i, images, inspect, rmi; a berth restart loses no image', async () => {
    const file = path.join(b.dir, 'other.tar');
    fs.writeFileSync(file, await buildBusyboxImage({ tags: ['other:1'] }));
    const load = await b.docker(['load', '-i', file], { apiVersion: '1.24' });
    expect(load.stdout).toContain('Loaded image: other:1');
    const images = await b.docker(['images', '--format', '{{.Repository}}:{{.Tag}}'], { apiVersion: '1.24' });
    expect(images.stdout.split('\n').filter(Boolean).sort()).toEqual(['busybox:latest', 'other:1']);
    await b.restart();
    const after = await b.docker(['images', '--format', '{{.Repository}}:{{.Tag}}']);
    expect(after.stdout.split('\n').filter(Boolean).sort()).toEqual(['busybox:latest', 'other:1']);
    const inspect = await b.docker(['inspect', '--format', '{{.Os}}', 'other:1'], { apiVersion: '1.24' });
    expect(inspect.stdout.trim()).toBe('linux');
    const rmi = await b.docker(['rmi', 'other:1'], { apiVersion: '1.24' });
    expect(rmi.stdout).toContain('Untagged: other:1');
    const info = (await b.request('GET', '/v1.24/info')).json();
    expect(info.Images).toBe(1);
  });

  test('loadBusybox helper returns the id', async () => {
    expect(await loadBusybox(b, 'helper:x')).toMatch(/^sha256:/);
  });

  test('the shared init layer stays between containers of an image and goes with the image', async () => {
    await loadBusybox(b, 'initlayer:x', { extraFiles: { 'init-layer-test': 'x' } });
    const img = (await b.request('GET', '/v1.24/images/initlayer:x/json')).json();
    const chain = chainIds(img.RootFS.Layers);
    const key = `berth-init2/${chain[chain.length - 1]}`;
    const stat = () => b.daemon.ctr.snapshots.Stat({ snapshotter: 'overlayfs', key }).then((s) => s.info?.kind, () => 'gone');
    for (let i = 0; i < 2; i++) {
      const id = (await b.request('POST', '/v1.24/containers/create', { body: { Image: 'initlayer:x', Cmd: ['true'] } })).json().Id;
      expect((await b.request('DELETE', `/v1.24/containers/${id}`)).status).toBe(204);
      await forceGC();
      // no container left: the image keeps the layer for the next one
      expect(await stat()).toBe('COMMITTED');
    }
    expect((await b.request('DELETE', '/v1.24/images/initlayer:x')).status).toBe(200);
    await forceGC();
    expect(await stat()).toBe('gone');
  });

  test("an image's init layer cut off before its commit (berth killed) is removed when berth starts", async () => {
    const img = (await b.request('GET', '/v1.24/images/busybox:latest/json')).json();
    const chain = chainIds(img.RootFS.Layers);
    // what prepareRootfs leaves when it is killed between its prepare and its commit, for both layer names
    const keys = [`berth-init2/${chain[chain.length - 1]}-key-0123456789ab`, `berth-init/${chain[chain.length - 1]}-key-ba9876543210`];
    for (const key of keys) await b.daemon.ctr.snapshots.Prepare({ snapshotter: 'overlayfs', key, parent: chain[chain.length - 1], labels: {} });
    await b.restart();
    const stat = (key: string) => b.daemon.ctr.snapshots.Stat({ snapshotter: 'overlayfs', key }).then(() => 'kept', () => 'gone');
    expect(await Promise.all(keys.map(stat))).toEqual(['gone', 'gone']);
  });

  test('rmi frees the layers before it answers, as the engine does (no collection asked)', async () => {
    await loadBusybox(b, 'freed:x', { extraFiles: { 'freed-test': 'x' } });
    const img = (await b.request('GET', '/v1.24/images/freed:x/json')).json();
    const chain = chainIds(img.RootFS.Layers);
    const blob = () => b.daemon.ctr.content.Info({ digest: img.Id }).then(() => 'kept', () => 'gone');
    const snapshot = () => b.daemon.ctr.snapshots.Stat({ snapshotter: 'overlayfs', key: chain[chain.length - 1] }).then(() => 'kept', () => 'gone');
    expect([await blob(), await snapshot()]).toEqual(['kept', 'kept']);
    expect((await b.request('DELETE', '/v1.24/images/freed:x')).status).toBe(200);
    expect([await blob(), await snapshot()]).toEqual(['gone', 'gone']); // the config blob and the top layer
  });
});

test('Content.Write continues an ingest a crash cut short from the offset containerd holds (resumable pull source)', async () => {
  const crypto = await import('node:crypto');
  const { Readable } = await import('node:stream');
  const { writeBlob } = await import('../../src/containerd/content');
  const { withLease } = await import('../../src/containerd/leases');
  const ctr = b.daemon.ctr;
  const data = crypto.randomBytes(3 << 20);
  const digest = 'sha256:' + crypto.createHash('sha256').update(data).digest('hex');
  const ref = `berth-test-resume-${digest}`;
  // A first attempt writes 1 MiB and dies without Abort (as a killed berth would).
  await new Promise<void>((resolve, reject) => {
    const call = ctr.raw.content.Write(ctr.metadata(), ctr.callOptions());
    let replies = 0;
    call.on('data', () => {
      replies++;
      if (replies === 1) call.write({ action: 'WRITE', ref, offset: '0', data: data.subarray(0, 1 << 20) });
      else {
        call.cancel();
        resolve();
      }
    });
    call.on('error', () => undefined);
    call.write({ action: 'STAT', ref, total: String(data.length), expected: digest });
    setTimeout(() => reject(new Error('no reply')), 5000);
  });
  const asked: number[] = [];
  // Under a lease: a committed blob that nothing refers to is containerd's garbage at its next collection (another
  // test's removal can start one between the write and the Info below).
  await withLease(ctr, 'berth-test-resume', async (lease) => {
    await writeBlob(ctr, async (offset) => {
      asked.push(offset);
      return Readable.from([data.subarray(offset)]);
    }, { ref, expected: digest, total: data.length, lease });
    expect(asked).toEqual([1 << 20]);
    const info = await ctr.content.Info({ digest });
    expect(Number(info.info?.size)).toBe(data.length);
    await ctr.content.Delete({ digest });
  });
});
