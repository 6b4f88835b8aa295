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
