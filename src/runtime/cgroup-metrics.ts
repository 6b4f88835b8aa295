// A running container's cgroup v1 figures read straight from its cgroup files, in the shape containerd's
// Tasks.Metrics answers (io.containerd.cgroups.v1.Metrics as berth decodes it: every field present), so the
// stats translation is the same whichever source a reading came from. containerd's shim reads the same files
// (containerd/cgroups v1: pids, cpu, cpuacct, memory, blkio Stat) for each task it is asked about; asking it costs a
// Metrics round trip through containerd and every shim (docker stats of 1,000 containers: ~4 s here), reading
// them is 12 small files per container, and 3 for a reading of the CPU figures only (a one-shot's first reading,
// which only gives the answer its precpu_stats). The files containerd reads that the answer does not use (memsw,
// kmem, oom_control, hugetlb) are not read, and a container's cgroup folders are kept while its process lives.
// Of a file's cost, the open is most (CPU per file here: open 7-15 µs, close 2-3, a read 2-3, memory.stat's 11):
// so a container's files stay open while it is read (a one-shot's second reading 100 ms after its first, a stream's
// every second) and are closed KEEP_MS after its last reading; a kept file is read again with a read at offset 0
// (a cgroup file is a seq_file: a read at 0 makes its text anew), each with one read into the reader's buffer.
// Open files are bounded (MAX_KEPT; beyond it a file is opened and closed for each read).
//
// Only the v1 hierarchy is read here; a cgroup v2 host (or a process whose cgroups cannot be read) answers
// undefined and the caller asks containerd.
import * as fs from 'node:fs';
import * as path from 'node:path';

/** USER_HZ (containerd's getClockTicks on Linux): cpuacct.stat counts in these. */
const CLOCK_TICKS = 100n;

/**
 * How long a container's files stay open after its last reading: past a one-shot's second reading (100 ms after the
 * first, more while a thousand wait) and a stream's next (a second later).
 */
export const KEEP_MS = 1500;

/**
 * At most this many files kept open at once (~5 KB of kernel memory each, its seq_file buffer mostly): a quarter of
 * the process's limit on open files, and no more than 8,192 (one-shots of 1,000 containers keep ~3,000 between
 * their two readings).
 */
function maxKept(): number {
  let soft = 1024;
  try {
    const m = /^Max open files\s+(\d+|unlimited)/m.exec(fs.readFileSync('/proc/self/limits', 'latin1'));
    if (m) soft = m[1] === 'unlimited' ? Infinity : Number(m[1]);
  } catch {
    /* no /proc: the default */
  }
  return Math.max(0, Math.min(8192, Math.floor(soft / 4)));
}

interface Dirs {
  memory: string;
  cpuacct: string;
  cpu?: string;
  blkio: string;
  pids: string;
  /** Whether the blkio hierarchy has the CFQ/BFQ recursive files (known after the first reading). */
  cfq?: boolean;
  /** The process they are of. */
  pid: number;
  /** Its files kept open, by path. */
  fds: Map<string, number>;
  /** When it was last read (ms, monotonic). */
  readAt: number;
}

/** Reads containers' cgroup v1 files; keeps each one's folders while its process is the same (an init stays in its cgroup). */
export class CgroupV1Reader {
  /** The v1 hierarchies' mount points by controller ("cpu,cpuacct" mounted together serves both). */
  private mounts?: Map<string, string>;
  /** By container id. */
  private readonly dirs = new Map<string, Dirs>();
  private readonly buf = Buffer.allocUnsafe(16 << 10);
  /** Files kept open, and the most there may be. */
  private kept = 0;
  private readonly maxKept: number;
  /** Closes what was not read for KEEP_MS. */
  private sweep?: NodeJS.Timeout;

  constructor(opts: { maxKept?: number; keepMs?: number } = {}) {
    this.maxKept = opts.maxKept ?? maxKept();
    this.keepMs = opts.keepMs ?? KEEP_MS;
  }

  private readonly keepMs: number;

  /** How many files are open now (for tests). */
  get openFiles(): number {
    return this.kept;
  }

  /**
   * The cgroup v1 metrics of container `id`, whose init is `pid`, as containerd's Tasks.Metrics gives them for its
   * task (the parts a stats answer is made from: pids, cpu, memory, blkio); with `cpuOnly`, only cpu. Undefined
   * when they cannot be read here (a v2 host, the process gone, a hierarchy not mounted).
   */
  metrics(id: string, pid: number, cpuOnly = false): Record<string, unknown> | undefined {
    let d = this.dirs.get(id);
    if (d?.pid !== pid) {
      this.forget(id);
      d = pid ? this.dirsOf(pid) : undefined;
      if (!d) return undefined;
      if (this.dirs.size >= 4096) for (const k of [...this.dirs.keys()]) this.forget(k); // (bounded: a stopped container's entry goes with forget())
      this.dirs.set(id, d);
    }
    d.readAt = performance.now();
    this.sweep ??= setTimeout(() => this.closeIdle(), this.keepMs).unref();
    try {
      if (cpuOnly) return { cpu: this.cpu(d) };
      return { pids: this.pids(d), cpu: this.cpu(d), memory: this.memory(d), blkio: this.blkio(d) };
    } catch {
      this.forget(id); // (the process is gone)
      return undefined;
    }
  }

  /** Forgets a container's folders and closes its files (it is not running). */
  forget(id: string): void {
    const d = this.dirs.get(id);
    if (!d) return;
    this.dirs.delete(id);
    this.closeFiles(d);
  }

  /** Closes every file kept open (the reader is no longer used). */
  close(): void {
    if (this.sweep) clearTimeout(this.sweep);
    this.sweep = undefined;
    for (const d of this.dirs.values()) this.closeFiles(d);
  }

  private closeFiles(d: Dirs): void {
    for (const fd of d.fds.values()) {
      try {
        fs.closeSync(fd);
      } catch {
        /* already closed */
      }
    }
    this.kept -= d.fds.size;
    d.fds.clear();
  }

  /** Closes the files of containers not read for KEEP_MS; comes back while any are open. */
  private closeIdle(): void {
    this.sweep = undefined;
    const before = performance.now() - this.keepMs;
    for (const d of this.dirs.values()) if (d.fds.size && d.readAt <= before) this.closeFiles(d);
    if (this.kept > 0) this.sweep = setTimeout(() => this.closeIdle(), this.keepMs).unref();
  }

  private v1Mounts(): Map<string, string> {
    if (this.mounts) return this.mounts;
    const out = new Map<string, string>();
    let text = '';
    try {
      text = fs.readFileSync('/proc/self/mountinfo', 'utf8');
    } catch {
      /* no /proc: nothing to read directly */
    }
    for (const line of text.split('\n')) {
      // 35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
      const sep = line.indexOf(' - ');
      if (sep < 0) continue;
      const [fstype, , superOpts] = line.slice(sep + 3).split(' ');
      if (fstype !== 'cgroup') continue;
      const f = line.slice(0, sep).split(' ');
      // (a hierarchy mounted below its root, as in a container, names cgroups relative to that root: not read here)
      if (f[3] !== '/') continue;
      for (const o of (superOpts ?? '').split(',')) if (!out.has(o)) out.set(o, f[4]);
    }
    this.mounts = out;
    return out;
  }

  /** The process's cgroup folder for each v1 controller read (/proc/<pid>/cgroup). */
  private dirsOf(pid: number): Dirs | undefined {
    let text: string;
    try {
      text = this.read(`/proc/${pid}/cgroup`);
    } catch {
      return undefined;
    }
    const m = this.v1Mounts();
    const found = new Map<string, string>();
    for (const line of text.split('\n')) {
      // 4:memory:/berth/<id>  (0::/... is the v2 hierarchy)
      const a = line.indexOf(':');
      const b = line.indexOf(':', a + 1);
      if (a < 0 || b < 0) continue;
      const rel = line.slice(b + 1);
      for (const c of line.slice(a + 1, b).split(',')) {
        const root = m.get(c);
        if (root) found.set(c, path.join(root, rel));
      }
    }
    const [memory, cpuacct, blkio, pids] = [found.get('memory'), found.get('cpuacct'), found.get('blkio'), found.get('pids')];
    if (!memory || !cpuacct || !blkio || !pids) return undefined;
    return { memory, cpuacct, cpu: found.get('cpu'), blkio, pids, pid, fds: new Map(), readAt: 0 };
  }

  /** A file of /proc: open, read, close. */
  private read(file: string): string {
    const fd = fs.openSync(file, 'r');
    try {
      return this.readAt0(fd);
    } finally {
      fs.closeSync(fd);
    }
  }

  /**
   * A file's text from offset 0 into the reader's buffer (no fstat, no buffer per file): one read, as a cgroup
   * file's text (a seq_file of one record) comes whole; a file that fills the buffer is read on.
   */
  private readAt0(fd: number): string {
    let n = fs.readSync(fd, this.buf, 0, this.buf.length, 0);
    if (n < this.buf.length) return this.buf.toString('latin1', 0, n);
    const parts = [Buffer.from(this.buf)];
    for (;;) {
      const more = Buffer.allocUnsafe(this.buf.length);
      const got = fs.readSync(fd, more, 0, more.length, n);
      if (got === 0) return Buffer.concat(parts).toString('latin1');
      parts.push(more.subarray(0, got));
      n += got;
    }
  }

  /** A file of container `d`'s cgroup: through its open file when kept (opened and kept while there is room). */
  private file(d: Dirs, file: string): string {
    let fd = d.fds.get(file);
    if (fd === undefined) {
      if (this.kept >= this.maxKept) return this.read(file);
      try {
        fd = fs.openSync(file, 'r');
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== 'EMFILE' && code !== 'ENFILE') throw err;
        // (out of descriptors: the process needs them more than this reader; everything kept is closed)
        for (const other of this.dirs.values()) this.closeFiles(other);
        return this.read(file);
      }
      d.fds.set(file, fd);
      this.kept++;
    }
    return this.readAt0(fd);
  }

  /** A uint64 file as containerd's decoded Metrics carries it (a decimal string). */
  private uint(d: Dirs, file: string): string {
    return decimal(this.file(d, file).trim());
  }

  private memory(d: Dirs): Record<string, unknown> {
    const raw = keyValues(this.file(d, d.memory + '/memory.stat'));
    const out: Record<string, unknown> = {};
    for (const [key, file] of MEMORY_STAT) out[key] = raw.get(file) ?? '0';
    for (const [key, file] of MEMORY_STAT) if (!key.startsWith('hierarchical')) out[`total_${key}`] = raw.get(`total_${file}`) ?? '0';
    const f = (name: string) => this.uint(d, `${d.memory}/memory.${name}`);
    out.usage = { usage: f('usage_in_bytes'), max: f('max_usage_in_bytes'), failcnt: f('failcnt'), limit: f('limit_in_bytes') };
    return out;
  }

  private cpu(d: Dirs): Record<string, unknown> {
    const stat = this.file(d, d.cpuacct + '/cpuacct.stat').trim().split(/\s+/);
    if (stat.length !== 4 || stat[0] !== 'user' || stat[2] !== 'system') throw new Error('unexpected cpuacct.stat');
    const ticks = (x: string) => String((BigInt(x) * 1_000_000_000n) / CLOCK_TICKS);
    // cpuacct.usage is the sum of the per-CPU counters cpuacct.usage_percpu prints (the kernel's cpuusage_read adds
    // the same per-CPU figures over every possible CPU): summed here, one file fewer to open.
    const perCpu = this.file(d, d.cpuacct + '/cpuacct.usage_percpu').trim().split(/\s+/).filter(Boolean).map(BigInt);
    const usage = {
      total: String(perCpu.reduce((a, b) => a + b, 0n)),
      kernel: ticks(stat[3]),
      user: ticks(stat[1]),
      per_cpu: perCpu.map(String),
    };
    const t = d.cpu ? keyValues(this.file(d, d.cpu + '/cpu.stat')) : new Map<string, string>();
    return { usage, throttling: { periods: t.get('nr_periods') ?? '0', throttled_periods: t.get('nr_throttled') ?? '0', throttled_time: t.get('throttled_time') ?? '0' } };
  }

  /** The CFQ/BFQ recursive files when the scheduler has them and they hold entries, else the throttle counters. */
  private blkio(d: Dirs): Record<string, unknown> {
    const out: Record<string, Record<string, unknown>[]> = Object.fromEntries(BLKIO_KEYS.map((k) => [k, []]));
    d.cfq ??= fs.existsSync(path.join(d.blkio, 'blkio.io_serviced_recursive'));
    if (d.cfq) {
      let size = 0;
      for (const k of BLKIO_KEYS) {
        out[k] = parseBlkio(this.file(d, `${d.blkio}/blkio.${k === 'io_time_recursive' ? 'time_recursive' : k}`));
        size += out[k].length;
      }
      if (size > 0) return out;
    }
    out.io_serviced_recursive = parseBlkio(this.file(d, d.blkio + '/blkio.throttle.io_serviced'));
    out.io_service_bytes_recursive = parseBlkio(this.file(d, d.blkio + '/blkio.throttle.io_service_bytes'));
    return out;
  }

  private pids(d: Dirs): Record<string, string> {
    const max = this.file(d, d.pids + '/pids.max').trim();
    return { current: this.uint(d, d.pids + '/pids.current'), limit: max === 'max' ? '0' : decimal(max) };
  }
}

/** "key value" lines (memory.stat, cpu.stat) as a map of decimal strings. */
function keyValues(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const sp = line.indexOf(' ');
    if (sp > 0) out.set(line.slice(0, sp), decimal(line.slice(sp + 1).trim()));
  }
  return out;
}

const DECIMAL = /^(?:0|[1-9][0-9]*)$/;

/** A uint64 as the kernel prints it (%llu), checked (as containerd's ParseUint would) rather than parsed: a BigInt round trip gave back the same text. */
function decimal(text: string): string {
  if (DECIMAL.test(text)) return text;
  return String(BigInt(text));
}

/** containerd's memory.stat keys (MemoryStat) and the names in the file. */
const MEMORY_STAT: [string, string][] = [
  ['cache', 'cache'], ['rss', 'rss'], ['rss_huge', 'rss_huge'], ['mapped_file', 'mapped_file'], ['dirty', 'dirty'], ['writeback', 'writeback'],
  ['pg_pg_in', 'pgpgin'], ['pg_pg_out', 'pgpgout'], ['pg_fault', 'pgfault'], ['pg_maj_fault', 'pgmajfault'], ['inactive_anon', 'inactive_anon'],
  ['active_anon', 'active_anon'], ['inactive_file', 'inactive_file'], ['active_file', 'active_file'], ['unevictable', 'unevictable'],
  ['hierarchical_memory_limit', 'hierarchical_memory_limit'], ['hierarchical_swap_limit', 'hierarchical_memsw_limit'],
];

const BLKIO_KEYS = ['io_service_bytes_recursive', 'io_serviced_recursive', 'io_queued_recursive', 'io_service_time_recursive', 'io_wait_time_recursive', 'io_merged_recursive', 'io_time_recursive', 'sectors_recursive'];

/** A blkio file's entries ("8:0 Read 4096" lines, or "8:0 4096"; the Total line left out), as containerd's readEntry. */
export function parseBlkio(text: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const line of text.split('\n')) {
    const f = line.split(/[ :]/).filter(Boolean);
    if (f.length < 3) {
      if (f.length === 0 || (f.length === 2 && f[0] === 'Total')) continue;
      throw new Error(`invalid blkio line: ${line}`);
    }
    out.push({ op: f.length === 4 ? f[2] : '', device: '', major: decimal(f[0]), minor: decimal(f[1]), value: decimal(f[f.length - 1]) });
  }
  return out;
}
