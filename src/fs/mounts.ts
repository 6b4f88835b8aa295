// Mounting a container's snapshot where berth can read or write it: a read-only overlay of the snapshot's layers
// (its upper dir becomes the top lower layer, so nothing is written), a read-write overlay with the snapshot's
// own options (stopped containers only), or a bind of the live rootfs mount of a running container (an overlay
// over a live upper dir would be "undefined behaviour" for the kernel). Uses mount(8) and umount(8) as root.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const execFileP = promisify(execFile);

/** A containerd mount (Snapshots.Mounts). */
export interface MountLike {
  type: string;
  source: string;
  options: string[];
}

/** Overlay options past this length are given relative to a common parent (the kernel takes one page). */
const MAX_OPTIONS = 3500;

function commonParent(dirs: string[]): string {
  let parts = path.dirname(dirs[0]).split('/');
  for (const d of dirs.slice(1)) {
    const p = d.split('/');
    let i = 0;
    while (i < parts.length && i < p.length - 1 && parts[i] === p[i]) i++;
    parts = parts.slice(0, i);
  }
  return parts.join('/') || '/';
}

async function mountOverlayOptions(target: string, options: string[]): Promise<void> {
  const dirKeys = ['lowerdir', 'upperdir', 'workdir'];
  let cwd: string | undefined;
  let opts = options;
  if (opts.join(',').length > MAX_OPTIONS) {
    const dirs = opts.filter((o) => dirKeys.some((k) => o.startsWith(`${k}=`))).flatMap((o) => o.slice(o.indexOf('=') + 1).split(':'));
    cwd = commonParent(dirs);
    const rel = (d: string) => path.relative(cwd!, d);
    opts = opts.map((o) => {
      const k = dirKeys.find((x) => o.startsWith(`${x}=`));
      return k ? `${k}=${o.slice(k.length + 1).split(':').map(rel).join(':')}` : o;
    });
  }
  await execFileP('mount', ['-t', 'overlay', 'overlay', '-o', opts.join(','), target], { cwd });
}

/** Read-only view of a snapshot: its upper dir (if any) over its lower dirs. */
export async function mountReadOnly(target: string, m: MountLike): Promise<void> {
  if (m.type === 'bind') {
    await execFileP('mount', ['--bind', '-o', 'ro', m.source, target]);
    return;
  }
  const opt = (k: string) => m.options.find((o) => o.startsWith(`${k}=`))?.slice(k.length + 1);
  const upper = opt('upperdir');
  const lower = (opt('lowerdir') ?? '').split(':').filter(Boolean);
  const layers = upper ? [upper, ...lower] : lower;
  if (layers.length === 1) {
    await execFileP('mount', ['--bind', '-o', 'ro', layers[0], target]);
    return;
  }
  const extra = m.options.filter((o) => !/^(lowerdir|upperdir|workdir)=/.test(o) && o !== 'rw');
  await mountOverlayOptions(target, ['ro', ...extra.filter((o) => o !== 'ro'), `lowerdir=${layers.join(':')}`]);
}

/** The snapshot mounted as containerd would mount it for the container (read-write). */
export async function mountSnapshot(target: string, m: MountLike): Promise<void> {
  if (m.type === 'bind') {
    await execFileP('mount', ['--bind', ...(m.options.includes('ro') ? ['-o', 'ro'] : []), m.source, target]);
    return;
  }
  await mountOverlayOptions(target, m.options);
}

/** A bind of `source` at `target`; read-only binds are remounted so (a bind ignores ro on the first mount). */
export async function bindMount(source: string, target: string, readOnly: boolean): Promise<void> {
  await execFileP('mount', ['--bind', source, target]);
  if (readOnly) {
    try {
      await execFileP('mount', ['-o', 'remount,bind,ro', target]);
    } catch (err) {
      await unmount(target);
      throw err;
    }
  }
}

export async function unmount(target: string): Promise<void> {
  try {
    await execFileP('umount', [target]);
  } catch {
    await execFileP('umount', ['-l', target]).catch(() => undefined);
  }
}

interface MountInfo {
  mountPoint: string;
  fsType: string;
  superOptions: string[];
}

const unescape = (s: string) => s.replace(/\\([0-7]{3})/g, (_m, o: string) => String.fromCharCode(parseInt(o, 8)));

export function readMountInfo(): MountInfo[] {
  let text = '';
  try {
    text = fs.readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return [];
  }
  const out: MountInfo[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    const [left, right] = line.split(' - ');
    if (!right) continue;
    const f = left.split(' ');
    const r = right.split(' ');
    out.push({ mountPoint: unescape(f[4]), fsType: r[0], superOptions: (r[2] ?? '').split(',') });
  }
  return out;
}

/**
 * The mount `file` is on (its real path's longest mount point; the last, visible one of a stack) and that mount's
 * propagation: shared (a peer group), slave (a master) or private.
 */
export function mountOf(file: string): { mountPoint: string; shared: boolean; slave: boolean } {
  const real = fs.realpathSync(file);
  let text = '';
  try {
    text = fs.readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return { mountPoint: '/', shared: false, slave: false };
  }
  let best = { mountPoint: '/', shared: false, slave: false };
  let bestLen = -1;
  for (const line of text.split('\n')) {
    const [left] = line.split(' - ');
    const f = left.split(' ');
    if (f.length < 6) continue;
    const mp = unescape(f[4]);
    const under = mp === '/' || real === mp || real.startsWith(`${mp}/`);
    if (!under || mp.length < bestLen) continue;
    const optional = f.slice(6);
    bestLen = mp.length;
    best = { mountPoint: mp, shared: optional.some((o) => o.startsWith('shared:')), slave: optional.some((o) => o.startsWith('master:')) };
  }
  return best;
}

/** Where the overlay with this upper dir is mounted in berth's mount namespace (a running container's rootfs). */
export function findOverlayByUpper(upper: string): string | undefined {
  return readMountInfo().find((m) => m.fsType === 'overlay' && m.superOptions.includes(`upperdir=${upper}`))?.mountPoint;
}

const OVERLAYFS_SUPER_MAGIC = 0x794c7630;

/**
 * Whether an overlay is mounted right at `dir` (a mount point: its device is not its parent's), with three system
 * calls. /proc/self/mountinfo lists every mount of the host, each container's rootfs and netns among them: reading
 * it took 5 ms here with 300 containers running, for every inspect of a running one.
 */
export function isOverlayMountPoint(dir: string): boolean {
  try {
    const st = fs.statSync(dir);
    return st.dev !== fs.statSync(path.dirname(dir)).dev && fs.statfsSync(dir).type === OVERLAYFS_SUPER_MAGIC;
  } catch {
    return false;
  }
}

/** Mounts left under `dir` by a berth that died mid-operation. */
export async function unmountAllUnder(dir: string): Promise<void> {
  const prefix = dir.endsWith('/') ? dir : `${dir}/`;
  const stale = readMountInfo().filter((m) => m.mountPoint.startsWith(prefix)).map((m) => m.mountPoint).sort().reverse();
  for (const m of stale) await unmount(m);
}
