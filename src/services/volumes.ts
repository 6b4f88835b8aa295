// The `local` volume driver: volumes are directories under <dataRoot>/volumes/<name>/_data (or a filesystem
// mounted there from DriverOpts type/device/o, like the engine's local driver); metadata in an atomic JSON file.
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { conflict, invalidParameter, notFound, systemError } from '../errors';
import { readJSONFileSync, writeFileAtomic } from '../store/atomic';
import type { EventPublisher } from '../types/event';
import type { Volume } from '../types/volume';

const execFileP = promisify(execFile);
const NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]+$/;

export class VolumeService {
  private readonly root: string;
  private readonly vols = new Map<string, Volume>();
  /** Which containers use a volume; provided by the container service. */
  usersOf: (name: string) => string[] = () => [];

  constructor(dataRoot: string, private readonly events: EventPublisher) {
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

  has(name: string): boolean {
    return this.vols.has(name);
  }

  async create(name: string | undefined, driver: string | undefined, opts: Record<string, string> | null, labels: Record<string, string> | null, anonymous = false): Promise<Volume> {
    const n = name || crypto.randomBytes(32).toString('hex');
    if (!NAME.test(n)) throw invalidParameter(`create ${n}: "${n}" includes invalid characters for a local volume name, only "[a-zA-Z0-9][a-zA-Z0-9_.-]" are allowed. If you intended to pass a host directory, use absolute path`);
    if (driver && driver !== 'local') throw notFound(`create ${n}: error looking up volume plugin ${driver}: plugin "${driver}" not found`);
    const existing = this.vols.get(n);
    if (existing) return existing; // the engine answers create of an existing local volume with that volume
    for (const k of Object.keys(opts ?? {})) if (!['type', 'device', 'o', 'size'].includes(k)) throw invalidParameter(`create ${n}: invalid option key: "${k}"`);
    const dir = path.join(this.root, n);
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
    await writeFileAtomic(path.join(dir, 'meta.json'), JSON.stringify(v));
    this.vols.set(n, v);
    this.events.publish('volume', 'create', n, { driver: 'local' });
    return v;
  }

  async remove(name: string, opts: { force?: boolean } = {}): Promise<void> {
    const v = this.vols.get(name);
    if (!v) {
      if (opts.force) return;
      throw notFound(`get ${name}: no such volume`);
    }
    const users = this.usersOf(name);
    if (users.length) throw conflict(`remove ${name}: volume is in use - [${users.join(', ')}]`);
    if (v.Options?.type || v.Options?.device) await execFileP('umount', [v.Mountpoint]).catch(() => undefined);
    this.vols.delete(name);
    await fs.promises.rm(path.join(this.root, name), { recursive: true, force: true });
    this.events.publish('volume', 'destroy', name, { driver: 'local' });
  }

  mounted(name: string, containerId: string, destination: string, rw: boolean): void {
    this.events.publish('volume', 'mount', name, { container: containerId, destination, driver: 'local', propagation: '', 'read/write': String(rw) });
  }

  unmounted(name: string, containerId: string): void {
    this.events.publish('volume', 'unmount', name, { container: containerId, driver: 'local' });
  }
}
