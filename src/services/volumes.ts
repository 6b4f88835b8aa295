// Volumes. The `local` driver: directories under <dataRoot>/volumes/<name>/_data (or a filesystem mounted there
// from DriverOpts type/device/o, like the engine's local driver). Other drivers are plugins (src/plugins) reached
// through a VolumeDriverRegistry; berth records their volumes too (name, driver, options, labels), so a volume
// whose driver went away is still listed. Metadata in an atomic JSON file per volume.
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { BerthError, conflict, invalidParameter, notFound, systemError } from '../errors';
import { readJSONFileSync, writeFileAtomic } from '../store/atomic';
import type { ContainerStore } from '../store/containers';
import type { EventPublisher } from '../types/event';
import type { Volume, VolumeDriver, VolumeDriverRegistry } from '../types/volume';

const NO_DRIVERS: VolumeDriverRegistry = {
  lookup: async (name) => {
    throw notFound(`error looking up volume plugin ${name}: plugin "${name}" not found`);
  },
  active: () => [],
};

const execFileP = promisify(execFile);
const NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]+$/;

export class VolumeService {
  private readonly root: string;
  private readonly vols = new Map<string, Volume>();
  constructor(
    dataRoot: string,
    private readonly events: EventPublisher,
    private readonly store: ContainerStore,
    private readonly drivers: VolumeDriverRegistry = NO_DRIVERS,
  ) {
    this.root = path.join(dataRoot, 'volumes');
    fs.mkdirSync(this.root, { recursive: true });
    for (const name of fs.readdirSync(this.root)) {
      const v = readJSONFileSync<Volume>(path.join(this.root, name, 'meta.json'));
      if (v) this.vols.set(v.Name, v);
    }
  }

  list(): Volume[] {
    return [...this.vols.values()].sort((a, b) => a.Name.localeCompare(b.Name));
  }

  get(name: string): Volume {
    const v = this.vols.get(name);
    if (!v) throw notFound(`get ${name}: no such volume`);
    return v;
  }

  /** An existing volume named by a container's create: the engine announces it (create) each time, as its API create. */
  reuse(name: string): Volume {
    const v = this.get(name);
    this.events.publish('volume', 'create', name, { driver: v.Driver });
    return v;
  }

  /** The volumes berth knows and those the active drivers list; a failing driver is a warning, as the engine's. */
  async listAll(): Promise<{ volumes: Volume[]; warnings: string[] }> {
    const out = new Map<string, Volume>();
    for (const v of this.vols.values()) out.set(v.Name, v);
    const warnings: string[] = [];
    await Promise.all(
      this.drivers.active().map(async (d) => {
        try {
          for (const dv of await d.list()) {
            const known = out.get(dv.Name);
            if (known && known.Driver === d.name) out.set(dv.Name, { ...known, Mountpoint: dv.Mountpoint ?? known.Mountpoint });
            else if (!known) out.set(dv.Name, { Name: dv.Name, Driver: d.name, Mountpoint: dv.Mountpoint ?? '', Labels: null, Options: null, CreatedAt: '' });
          }
        } catch (err) {
          warnings.push(`list ${d.name}: ${(err as Error).message}`);
        }
      }),
    );
    return { volumes: [...out.values()].sort((a, b) => a.Name.localeCompare(b.Name)), warnings };
  }

  /** A volume as inspect shows it: a plugin volume is asked of its driver (Mountpoint, Status). */
  async inspect(name: string): Promise<Volume> {
    const v = this.vols.get(name);
    if (!v) {
      // not recorded here: a volume an active driver knows (made outside berth)
      for (const d of this.drivers.active()) {
        const dv = await d.get(name).catch(() => undefined);
        if (dv) return { Name: name, Driver: d.name, Mountpoint: dv.Mountpoint ?? '', Labels: null, Options: null, CreatedAt: '', Status: dv.Status };
      }
      throw notFound(`get ${name}: no such volume`);
    }
    if (v.Driver === 'local') return v;
    try {
      const d = await this.drivers.lookup(v.Driver);
      const dv = await d.get(name);
      return { ...v, Mountpoint: dv.Mountpoint ?? v.Mountpoint, Status: dv.Status };
    } catch (err) {
      throw systemError(`get ${name}: error while checking if volume "${name}" exists in driver "${v.Driver}": ${(err as Error).message}`, err);
    }
  }

  /** Mounts a plugin volume for one mount id; the host path. Fails with the engine's message. */
  async mount(name: string, id: string): Promise<string> {
    const v = this.get(name);
    if (v.Driver === 'local') return v.Mountpoint;
    let d: VolumeDriver | undefined;
    try {
      d = await this.drivers.lookup(v.Driver);
      return await d.mount(name, id);
    } catch (err) {
      // the engine names the path it had for the volume before the mount: the driver's empty one, scoped
      throw systemError(`error while mounting volume '${d?.scope('') ?? ''}': ${(err as Error).message}`, err);
    }
  }

  async unmount(name: string, id: string): Promise<void> {
    const v = this.vols.get(name);
    if (!v || v.Driver === 'local') return;
    const d = await this.drivers.lookup(v.Driver);
    await d.unmount(name, id);
  }

  has(name: string): boolean {
    return this.vols.has(name);
  }

  async create(name: string | undefined, driver: string | undefined, opts: Record<string, string> | null, labels: Record<string, string> | null, anonymous = false): Promise<Volume> {
    const n = name || crypto.randomBytes(32).toString('hex');
    if (!NAME.test(n)) throw invalidParameter(`create ${n}: "${n}" includes invalid characters for a local volume name, only "[a-zA-Z0-9][a-zA-Z0-9_.-]" are allowed. If you intended to pass a host directory, use absolute path`);
    if (driver && driver !== 'local') return this.createWithDriver(n, driver, opts, labels);
    const existing = this.vols.get(n);
    if (existing) {
      if (existing.Driver !== 'local') throw conflict(`create ${n}: volume name ${n} already in use with driver ${existing.Driver}`);
      // The engine answers create of an existing local volume with that volume, and announces it again (also
      // when a container's create names it).
      this.events.publish('volume', 'create', n, { driver: 'local' });
      return existing;
    }
    for (const k of Object.keys(opts ?? {})) if (!['type', 'device', 'o', 'size'].includes(k)) throw invalidParameter(`create ${n}: invalid option key: "${k}"`);
    const dir = path.join(this.root, n);
    // a name longer than a file name may be: the reference's message (its status is 500; a client's mistake is 400 here)
    if (Buffer.byteLength(n) > 255) throw invalidParameter(`create ${n}: error while creating volume root path '${dir}': mkdir ${dir}: file name too long`);
    const v: Volume = { Name: n, Driver: 'local', Mountpoint: path.join(dir, '_data'), Labels: labels && Object.keys(labels).length ? labels : null, Options: opts && Object.keys(opts).length ? opts : null, CreatedAt: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), Anonymous: anonymous || undefined };
    await fs.promises.mkdir(v.Mountpoint, { recursive: true, mode: 0o755 });
    if (v.Options?.type || v.Options?.device) {
      const args = ['-t', v.Options.type ?? 'none', ...(v.Options.o ? ['-o', v.Options.o] : []), v.Options.device ?? v.Options.type ?? 'none', v.Mountpoint];
      try {
        await execFileP('mount', args);
      } catch (err) {
        await fs.promises.rm(dir, { recursive: true, force: true });
        throw systemError(`error while mounting volume '${v.Mountpoint}': ${(err as { stderr?: string }).stderr?.trim() || (err as Error).message}`);
      }
    }
    try {
      await writeFileAtomic(path.join(dir, 'meta.json'), JSON.stringify(v));
    } catch (err) {
      // not recorded (a full disk): nothing of it stays
      if (v.Options?.type || v.Options?.device) await execFileP('umount', [v.Mountpoint]).catch(() => undefined);
      await fs.promises.rm(dir, { recursive: true, force: true }).catch(() => undefined);
      throw err;
    }
    this.vols.set(n, v);
    this.events.publish('volume', 'create', n, { driver: 'local' });
    return v;
  }

  private async createWithDriver(n: string, driver: string, opts: Record<string, string> | null, labels: Record<string, string> | null): Promise<Volume> {
    let d: VolumeDriver;
    try {
      d = await this.drivers.lookup(driver);
    } catch (err) {
      const e = err as BerthError;
      throw new BerthError(e.kind ?? 'System', `create ${n}: ${e.message}`, err);
    }
    const existing = this.vols.get(n);
    if (existing) {
      if (existing.Driver !== d.name) throw conflict(`create ${n}: volume name ${n} already in use with driver ${existing.Driver}`);
      return existing;
    }
    try {
      await d.create(n, opts && Object.keys(opts).length ? opts : null); // no options: null, as the engine sends them
    } catch (err) {
      throw systemError(`create ${n}: ${(err as Error).message}`, err);
    }
    const dv = await d.get(n).catch(() => undefined);
    const v: Volume = { Name: n, Driver: d.name, Mountpoint: dv?.Mountpoint ?? '', Labels: labels && Object.keys(labels).length ? labels : null, Options: opts && Object.keys(opts).length ? opts : null, CreatedAt: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), Status: dv?.Status };
    const dir = path.join(this.root, n);
    await fs.promises.mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFileAtomic(path.join(dir, 'meta.json'), JSON.stringify({ ...v, Status: undefined }));
    this.vols.set(n, v);
    this.events.publish('volume', 'create', n, { driver: d.name });
    return v;
  }

  /** The containers that use a volume. */
  usersOf(name: string): string[] {
    return this.store.usingVolume(name);
  }

  async remove(name: string, opts: { force?: boolean } = {}): Promise<void> {
    const v = this.vols.get(name);
    if (!v) {
      if (opts.force) return;
      throw notFound(`get ${name}: no such volume`);
    }
    const users = this.usersOf(name);
    if (users.length) throw conflict(`remove ${name}: volume is in use - [${users.join(', ')}]`);
    if (v.Driver !== 'local') {
      try {
        if (!opts.force) await this.inspect(name); // as the engine: the driver is asked first, its failure reported as a get's
        await (await this.drivers.lookup(v.Driver)).remove(name);
      } catch (err) {
        if (!opts.force) throw err instanceof BerthError && err.message.startsWith('get ') ? err : systemError(`remove ${name}: ${(err as Error).message}`, err);
      }
    } else if (v.Options?.type || v.Options?.device) await execFileP('umount', [v.Mountpoint]).catch(() => undefined);
    this.vols.delete(name);
    await fs.promises.rm(path.join(this.root, name), { recursive: true, force: true });
    this.events.publish('volume', 'destroy', name, { driver: v.Driver });
  }

  mounted(name: string, containerId: string, destination: string, rw: boolean): void {
    this.events.publish('volume', 'mount', name, { container: containerId, destination, driver: 'local', propagation: '', 'read/write': String(rw) });
  }

  unmounted(name: string, containerId: string): void {
    this.events.publish('volume', 'unmount', name, { container: containerId, driver: 'local' });
  }
}
