// berth's container records: one JSON file per container (written atomically) under <dataRoot>/containers/<id>/,
// an in-memory index by id and by name, and lookup the way the engine does it (full id, name with or without
// the leading slash, unique id prefix).
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { conflict, invalidParameter, notFound } from '../errors';
import { readJSONFileSync, writeFileAtomic } from './atomic';
import type { ContainerRecord, ContainerState } from '../types/container';

/** The length of the short id (`docker ps`'s CONTAINER ID). */
const SHORT = 12;

export const ZERO = '0001-01-01T00:00:00Z';

/** A removed record's files up to this size are unlinked on the main thread (rmTrash). */
const SMALL_FILE = 1 << 20;

export function newState(): ContainerState {
  return { Status: 'created', Running: false, Paused: false, Restarting: false, OOMKilled: false, Dead: false, Pid: 0, ExitCode: 0, Error: '', StartedAt: ZERO, FinishedAt: ZERO };
}

export class ContainerStore {
  /** Ids of the containers that mount a volume. */
  usingVolume(name: string): string[] {
    return this.all().filter((c) => (c.MountPoints ?? []).some((m) => m.Name === name)).map((c) => c.Id);
  }

  /** The containers made from an image, and whether each runs. */
  usingImage(imageId: string): { id: string; running: boolean }[] {
    return this.all().filter((c) => c.Image === imageId).map((c) => ({ id: c.Id, running: c.State.Running }));
  }

  private readonly byId = new Map<string, ContainerRecord>();
  private readonly byName = new Map<string, string>();
  /**
   * The ids by their first SHORT characters (the short id the CLI shows and passes back: `docker stats` of 1,000
   * containers looks each one up by it), so a prefix that long finds its candidates without a pass over every id.
   */
  private readonly byShort = new Map<string, string[]>();
  /** Each record's file writes in order (a later state never lands before an earlier one), and its removal after them. */
  private readonly writes = new Map<string, Promise<void>>();
  /**
   * Each record's write that waits for the one in flight: a later save joins it (its state replaces the queued one,
   * and its caller waits for that write), so a burst of saves costs one write after the current one, not one each.
   */
  private readonly queued = new Map<string, { rec: ContainerRecord; data: string; done: Promise<void> }>();
  /** Records removed: a late save (a health probe, an exit, an update racing rm -f) must not bring them back. */
  private readonly removed = new WeakSet<ContainerRecord>();
  readonly root: string;
  /**
   * Where a removed record's folder is moved (one rename, on the same file system) before it is deleted in the
   * background: the removal's answer waits for the rename, not for the deletion of each file (3-8 ms on a loaded
   * machine). What a berth killed meanwhile left there is deleted at the next start.
   */
  private readonly trash: string;

  constructor(dataRoot: string) {
    this.root = path.join(dataRoot, 'containers');
    this.trash = path.join(dataRoot, 'containers.removed');
    fs.mkdirSync(this.root, { recursive: true });
    fs.mkdirSync(this.trash, { recursive: true });
    for (const f of fs.readdirSync(this.trash)) this.emptied = this.emptied.then(() => this.rmTrash(path.join(this.trash, f)));
    for (const id of fs.readdirSync(this.root)) {
      const rec = readJSONFileSync<ContainerRecord>(this.file(id));
      if (!rec) continue;
      this.index(rec);
      this.byName.set(rec.Name, rec.Id);
    }
  }

  dir(id: string): string {
    return path.join(this.root, id);
  }

  private file(id: string): string {
    return path.join(this.root, id, 'config.v2.json');
  }

  static newId(): string {
    return crypto.randomBytes(32).toString('hex');
  }

  /** Folders under the store with no record: a create killed before its record was written. */
  strays(): string[] {
    return fs.readdirSync(this.root).filter((id) => !this.byId.has(id) && !fs.existsSync(this.file(id)));
  }

  all(): ContainerRecord[] {
    return [...this.byId.values()];
  }

  /** Reserves a name for an id (409 with the engine's message when taken). */
  reserveName(name: string, id: string): void {
    const n = name.startsWith('/') ? name : `/${name}`;
    const holder = this.byName.get(n);
    if (holder && holder !== id)
      throw conflict(`Conflict. The container name "${n}" is already in use by container "${holder}". You have to remove (or rename) that container to be able to reuse that name.`);
    this.byName.set(n, id);
  }

  releaseName(name: string, id: string): void {
    if (this.byName.get(name) === id) this.byName.delete(name);
  }

  hasName(name: string): boolean {
    return this.byName.has(name.startsWith('/') ? name : `/${name}`);
  }

  /**
   * Writes the record (resolves once a write with this state is on disk). With `as`, the file gets that version of
   * it instead (a state about to be true: a start's running state written while containerd starts the task); the
   * index keeps `rec`.
   */
  async save(rec: ContainerRecord, as: ContainerRecord = rec): Promise<void> {
    if (this.removed.has(rec)) return;
    this.index(rec);
    this.byName.set(rec.Name, rec.Id);
    const data = JSON.stringify(as);
    const waiting = this.queued.get(rec.Id);
    if (waiting) {
      // (not begun yet: it writes this state, the latest, and resolves only once that is on disk)
      waiting.rec = rec;
      waiting.data = data;
      return waiting.done;
    }
    const q = { rec, data, done: Promise.resolve() };
    this.queued.set(rec.Id, q);
    q.done = this.serial(rec.Id, () => {
      if (this.queued.get(rec.Id) === q) this.queued.delete(rec.Id); // from here a save queues a write of its own
      return this.removed.has(q.rec) ? Promise.resolve() : writeFileAtomic(this.file(rec.Id), q.data);
    });
    return q.done;
  }

  /** The background deletions of removed records' folders (tests wait for them). */
  emptied: Promise<void> = Promise.resolve();

  /**
   * A removed record's folder deleted, after the removal's answer (setImmediate): its small files (the record, the
   * /etc files, a short log) at once, a few syscalls on the main thread instead of fs.rm's ~15 thread-pool round
   * trips (an lstat and an unlink each, the folder's read and rmdir); a large file (a log: freeing its blocks takes
   * a while) and anything that is not a file on the thread pool, as fs.rm does it.
   */
  private rmTrash(dir: string): Promise<void> {
    return new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => {
        const later: Promise<void>[] = [];
        for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
          const p = path.join(dir, e.name);
          if (e.isFile() && fs.lstatSync(p).size <= SMALL_FILE) fs.unlinkSync(p);
          else later.push(fs.promises.rm(p, { recursive: true, force: true }));
        }
        if (!later.length) return fs.rmdirSync(dir);
        return Promise.all(later).then(() => fs.promises.rmdir(dir));
      })
      .catch(() => fs.promises.rm(dir, { recursive: true, force: true }))
      .catch(() => undefined);
  }

  /** The record's folder out of the store at once (moved to the trash, deleted in the background). */
  private async removeDir(id: string): Promise<void> {
    const gone = path.join(this.trash, `${id}-${crypto.randomBytes(4).toString('hex')}`);
    try {
      await fs.promises.rename(this.dir(id), gone);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' && !fs.existsSync(this.dir(id))) return; // (gone already)
      // (the trash gone or elsewhere, say: the folder is deleted where it is, as before)
      await fs.promises.rm(this.dir(id), { recursive: true, force: true });
      return;
    }
    const emptied = this.rmTrash(gone);
    this.emptied = this.emptied.then(() => emptied);
  }

  async delete(rec: ContainerRecord): Promise<void> {
    this.removed.add(rec);
    this.queued.delete(rec.Id); // (a save after this one is no longer ordered before the removal)
    this.unindex(rec.Id);
    this.releaseName(rec.Name, rec.Id);
    try {
      await this.serial(rec.Id, () => this.removeDir(rec.Id));
    } catch (err) {
      this.removed.delete(rec); // the caller records the failed removal (the container is dead) and a later remove retries
      throw err;
    }
  }

  private serial(id: string, op: () => Promise<void>): Promise<void> {
    const run = (this.writes.get(id) ?? Promise.resolve()).then(op);
    const tail = run.catch(() => undefined);
    this.writes.set(id, tail);
    void tail.then(() => {
      if (this.writes.get(id) === tail) this.writes.delete(id);
    });
    return run;
  }

  get(id: string): ContainerRecord | undefined {
    return this.byId.get(id);
  }

  private index(rec: ContainerRecord): void {
    if (!this.byId.has(rec.Id)) {
      const short = rec.Id.slice(0, SHORT);
      const ids = this.byShort.get(short);
      if (ids) ids.push(rec.Id);
      else this.byShort.set(short, [rec.Id]);
    }
    this.byId.set(rec.Id, rec);
  }

  private unindex(id: string): void {
    if (!this.byId.delete(id)) return;
    const short = id.slice(0, SHORT);
    const ids = this.byShort.get(short)?.filter((x) => x !== id) ?? [];
    if (ids.length) this.byShort.set(short, ids);
    else this.byShort.delete(short);
  }

  /** The ids that begin with `prefix` (hex): none, one, or two of them (then the prefix is ambiguous). */
  private withPrefix(prefix: string): string[] {
    const candidates = prefix.length >= SHORT ? (this.byShort.get(prefix.slice(0, SHORT)) ?? []) : this.byId.keys();
    const hits: string[] = [];
    for (const id of candidates) if (id.startsWith(prefix) && hits.push(id) > 1) break;
    return hits;
  }

  /** Full id, exact name (with or without '/'), or unique id prefix — like the engine's GetContainer. */
  find(ref: string): ContainerRecord {
    if (!ref) throw invalidParameter('No container name or ID supplied');
    const exact = this.byId.get(ref);
    if (exact) return exact;
    // A name whose create has not written its record yet is no container (the engine's GetByName fails and the
    // lookup goes on, as here): a request racing that create is 404, never a record that does not exist.
    const byName = this.byId.get(this.byName.get(ref.startsWith('/') ? ref : `/${ref}`) ?? '');
    if (byName) return byName;
    if (/^[a-f0-9]+$/.test(ref)) {
      const hits = this.withPrefix(ref);
      if (hits.length === 1) return this.byId.get(hits[0])!;
      if (hits.length > 1) throw invalidParameter(`Multiple IDs found with provided prefix: ${ref}`);
    }
    throw notFound(`No such container: ${ref}`);
  }

  tryFind(ref: string): ContainerRecord | undefined {
    try {
      return this.find(ref);
    } catch {
      return undefined;
    }
  }
}
