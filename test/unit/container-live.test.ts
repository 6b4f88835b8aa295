// ContainerLive.snapshotMounts: a container's rw snapshot's mounts asked of containerd once, kept while it exists.
import { ContainerLive } from '../../src/services/container-live';
import type { SnapshotMount } from '../../src/containerd/snapshots';
import type { ContainerStore } from '../../src/store/containers';

const records = new Set<string>();
const store = { get: (id: string) => (records.has(id) ? { Id: id } : undefined) } as unknown as ContainerStore;
const mount = (upper: string): SnapshotMount[] => [{ type: 'overlay', source: 'overlay', target: '', options: [`upperdir=${upper}`, 'lowerdir=/l'] }];

beforeEach(() => records.clear());

test('asked once per container, the answer shared by calls at the same time and kept for later ones', async () => {
  records.add('a');
  const live = new ContainerLive(store);
  let asked = 0;
  const ask = async () => (asked++, mount('/u/a'));
  const [x, y] = await Promise.all([live.snapshotMounts('a', ask), live.snapshotMounts('a', ask)]);
  expect([x, y]).toEqual([mount('/u/a'), mount('/u/a')]);
  expect(await live.snapshotMounts('a', ask)).toEqual(mount('/u/a'));
  expect(asked).toBe(1);
  expect(await live.snapshotMounts('a', ask)).toBe(await live.snapshotMounts('a', ask));
  expect(asked).toBe(1);
});

test('a failed ask is not kept; nor an answer for a container removed meanwhile; a removal drops what was kept', async () => {
  const live = new ContainerLive(store);
  records.add('b');
  await expect(live.snapshotMounts('b', () => Promise.reject(new Error('not found')))).rejects.toThrow('not found');
  expect(await live.snapshotMounts('b', async () => mount('/u/b'))).toEqual(mount('/u/b'));
  expect(await live.snapshotMounts('b', async () => mount('/u/other'))).toEqual(mount('/u/b'));
  expect(live.get('b')?.rootMounts).toBeDefined();
  live.delete('b');
  records.delete('b');
  let asked = 0;
  await live.snapshotMounts('b', async () => (asked++, mount('/u/b2')));
  await live.snapshotMounts('b', async () => (asked++, mount('/u/b2')));
  expect(asked).toBe(2);
  expect(live.get('b')).toBeUndefined(); // (no Live made for a container that is gone)
});
