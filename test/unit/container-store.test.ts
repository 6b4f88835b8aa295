// ContainerStore: lookups while a create has reserved its name but not written its record (the fuzz run's racy 500
// "Cannot read properties of undefined (reading 'State')", seed 7), and saves that race a removal.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ContainerStore, newState } from '../../src/store/containers';
import type { ContainerRecord } from '../../src/types/container';

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-store-'));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

function record(id: string, name: string): ContainerRecord {
  return { Id: id, Name: name, State: newState() } as unknown as ContainerRecord;
}

test('a name reserved by a create in progress is no container yet: find is 404, tryFind undefined', () => {
  const store = new ContainerStore(root);
  const id = ContainerStore.newId();
  store.reserveName('/pending', id);
  expect(() => store.find('pending')).toThrow('No such container: pending');
  expect(() => store.find('/pending')).toThrow('No such container: /pending');
  expect(store.tryFind('pending')).toBeUndefined();
  // the name stays taken for other creates
  expect(() => store.reserveName('pending', ContainerStore.newId())).toThrow(/is already in use by container/);
});

test('a save that races a removal neither brings the record back nor leaves its file', async () => {
  const store = new ContainerStore(root);
  const rec = record(ContainerStore.newId(), '/gone');
  await store.save(rec);
  const late = store.save({ ...rec }); // queued before the removal: written, then removed
  const removal = store.delete(rec);
  const after = store.save(rec); // after the removal began: dropped
  await Promise.all([late, removal, after]);
  expect(store.tryFind('gone')).toBeUndefined();
  expect(store.get(rec.Id)).toBeUndefined();
  expect(fs.existsSync(store.dir(rec.Id))).toBe(false);
  expect(new ContainerStore(root).all()).toEqual([]);
});

test('saves of one record land in order: the last state is the one on disk', async () => {
  const store = new ContainerStore(root);
  const rec = record(ContainerStore.newId(), '/ordered');
  const saves: Promise<void>[] = [];
  for (let i = 0; i < 20; i++) {
    rec.State = { ...rec.State, ExitCode: i };
    saves.push(store.save(rec));
  }
  await Promise.all(saves);
  expect(new ContainerStore(root).get(rec.Id)?.State.ExitCode).toBe(19);
});

describe('saves queued behind a write in flight are merged', () => {
  /** Holds each record file's rename (the write's last step) until released; counts the writes. */
  function holdWrites() {
    const rename = fs.promises.rename;
    const held: (() => void)[] = [];
    let hold = true;
    const spy = jest.spyOn(fs.promises, 'rename').mockImplementation(async (from, to) => {
      if (hold) await new Promise<void>((r) => held.push(r));
      return rename(from, to);
    });
    const waitHeld = async (n: number) => {
      while (held.length < n) await new Promise((r) => setTimeout(r, 1));
    };
    return { spy, held, waitHeld, release: () => (hold = false) };
  }
  afterEach(() => jest.restoreAllMocks());

  const onDisk = (store: ContainerStore, id: string) => (JSON.parse(fs.readFileSync(path.join(store.dir(id), 'config.v2.json'), 'utf8')) as ContainerRecord).State.ExitCode;

  test('one write for the burst, the latest state; each waiter resolves once a write with its state is on disk', async () => {
    const store = new ContainerStore(root);
    const rec = record(ContainerStore.newId(), '/merged');
    const h = holdWrites();
    const seen: [number, number][] = []; // [the state saved, what was on disk when its save resolved]
    const save = (code: number) => {
      rec.State = { ...rec.State, ExitCode: code };
      return store.save(rec).then(() => void seen.push([code, onDisk(store, rec.Id)]));
    };
    const first = save(0);
    await h.waitHeld(1); // the first write is in flight (held before its rename)
    const burst = [1, 2, 3, 4, 5].map(save);
    await new Promise((r) => setTimeout(r, 20));
    expect(seen).toEqual([]); // nothing resolved before its state was written
    h.release();
    h.held.shift()!();
    await Promise.all([first, ...burst]);
    expect(h.spy).toHaveBeenCalledTimes(2); // the first state's write, then one for the five queued behind it
    expect(seen[0]).toEqual([0, 0]);
    for (const [code, disk] of seen.slice(1)) expect(disk).toBeGreaterThanOrEqual(code);
    expect(seen.slice(1).map(([, disk]) => disk)).toEqual([5, 5, 5, 5, 5]);
    expect(new ContainerStore(root).get(rec.Id)?.State.ExitCode).toBe(5);
  });

  test('a save made while the merged write is under way waits for a write of its own', async () => {
    const store = new ContainerStore(root);
    const rec = record(ContainerStore.newId(), '/third');
    const h = holdWrites();
    const done: number[] = [];
    const save = (code: number) => {
      rec.State = { ...rec.State, ExitCode: code };
      return store.save(rec).then(() => void done.push(onDisk(store, rec.Id)));
    };
    const a = save(1);
    await h.waitHeld(1);
    const b = save(2);
    h.held.shift()!(); // the first write lands; the second (state 2) begins and is held
    await h.waitHeld(1);
    const c = save(3); // after the second write began: not in it
    h.held.shift()!();
    await b;
    expect(done).toEqual([1, 2]); // (c is not resolved by a write without its state)
    await h.waitHeld(1);
    h.release();
    h.held.shift()!();
    await Promise.all([a, b, c]);
    expect(done).toEqual([1, 2, 3]);
    expect(h.spy).toHaveBeenCalledTimes(3);
  });

  test('a merged write that fails fails each of its waiters; the write before it and a later save are kept', async () => {
    const store = new ContainerStore(root);
    const rec = record(ContainerStore.newId(), '/failing');
    const rename = fs.promises.rename;
    const held: (() => void)[] = [];
    let calls = 0;
    jest.spyOn(fs.promises, 'rename').mockImplementation(async (from, to) => {
      const n = ++calls;
      if (n === 1) await new Promise<void>((r) => held.push(r));
      if (n === 2) throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
      return rename(from, to);
    });
    rec.State = { ...rec.State, ExitCode: 1 };
    const first = store.save(rec);
    while (!held.length) await new Promise((r) => setTimeout(r, 1));
    rec.State = { ...rec.State, ExitCode: 2 };
    const x = store.save(rec);
    rec.State = { ...rec.State, ExitCode: 3 };
    const y = store.save(rec);
    held.shift()!();
    await first;
    await expect(x).rejects.toThrow('ENOSPC');
    await expect(y).rejects.toThrow('ENOSPC');
    expect(onDisk(store, rec.Id)).toBe(1);
    expect(fs.readdirSync(store.dir(rec.Id))).toEqual(['config.v2.json']); // no temp file left
    await store.save(rec);
    expect(onDisk(store, rec.Id)).toBe(3);
  });

  test('a save queued behind a write and then the removal: the record is gone, the save resolved', async () => {
    const store = new ContainerStore(root);
    const rec = record(ContainerStore.newId(), '/removed');
    const h = holdWrites();
    const first = store.save(rec);
    await h.waitHeld(1);
    rec.State = { ...rec.State, Status: 'removing' };
    const removing = store.save(rec);
    const removal = store.delete(rec);
    h.release();
    h.held.shift()!();
    await Promise.all([first, removing, removal]);
    expect(fs.existsSync(store.dir(rec.Id))).toBe(false);
    expect(new ContainerStore(root).all()).toEqual([]);
  });
});

test("a removed record's folder leaves the store at once and is deleted in the background; a new store empties what a killed one left", async () => {
  const store = new ContainerStore(root);
  const rec = record(ContainerStore.newId(), '/trashed');
  await store.save(rec);
  fs.writeFileSync(path.join(store.dir(rec.Id), 'hosts'), '127.0.0.1 localhost\n');
  await store.delete(rec);
  expect(fs.existsSync(store.dir(rec.Id))).toBe(false);
  expect(new ContainerStore(root).all()).toEqual([]);
  await store.emptied;
  expect(fs.readdirSync(path.join(root, 'containers.removed'))).toEqual([]);
  // what a berth killed before its background deletion left
  fs.mkdirSync(path.join(root, 'containers.removed', `${rec.Id}-0a0b0c0d`, 'sub'), { recursive: true });
  const next = new ContainerStore(root);
  await next.emptied;
  expect(fs.readdirSync(path.join(root, 'containers.removed'))).toEqual([]);
  // a record whose folder is gone already: the removal is done
  const other = record(ContainerStore.newId(), '/nofolder');
  await next.save(other);
  fs.rmSync(next.dir(other.Id), { recursive: true });
  await next.delete(other);
  expect(next.get(other.Id)).toBeUndefined();
});

test('an id prefix finds its container whether shorter or longer than the short id; two matches are ambiguous; a removed one is gone', async () => {
  const store = new ContainerStore(root);
  const a = record('abcdef0123456789' + '0'.repeat(48), '/a');
  const b = record('abcdef0123456789' + '1'.repeat(48), '/b');
  const c = record('abcdef01234f' + '2'.repeat(52), '/c');
  for (const r of [a, b, c]) await store.save(r);
  await store.save(a); // (saved again: indexed once)
  expect(store.find('abcdef0123456789' + '0').Name).toBe('/a');
  expect(store.find(b.Id.slice(0, 20)).Name).toBe('/b');
  expect(store.find('abcdef01234f').Name).toBe('/c');
  expect(store.find('abcdef01234f2').Name).toBe('/c');
  expect(() => store.find('abcdef012345')).toThrow('Multiple IDs found with provided prefix: abcdef012345');
  expect(() => store.find('abcdef0123456789')).toThrow('Multiple IDs found with provided prefix: abcdef0123456789');
  expect(() => store.find('abcdef')).toThrow('Multiple IDs found with provided prefix: abcdef');
  expect(() => store.find('abcdef0123456789' + '3')).toThrow('No such container: abcdef01234567893');
  await store.delete(b);
  expect(store.find('abcdef0123456789').Name).toBe('/a');
  expect(store.find('abcdef012345').Name).toBe('/a');
  await store.delete(a);
  expect(store.find('abcdef01').Name).toBe('/c');
  expect(() => store.find('abcdef0123456789')).toThrow('No such container');
  // read back from disk: the same lookups
  const again = new ContainerStore(root);
  expect(again.find('abcdef012').Name).toBe('/c');
  expect(again.find(c.Id.slice(0, 30)).Name).toBe('/c');
});
