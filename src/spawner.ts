// Short commands (CNI plugins, mkfifo) run by a small helper process instead of berthd itself. Node forks the whole
// daemon for every child (libuv's fork on Linux): the main thread stops while the kernel copies the page tables of
// ~100 MB, a few ms on a quiet machine and tens of ms on a loaded one, and that stop fell on every container's start
// and exit (a CNI plugin per network, the loopback). The helper is a `sh` that reads one command a line and runs it
// in the background; forking a shell of a few hundred KB costs next to nothing. Standard input, output and error go
// through files in a private folder on tmpfs (/dev/shm when there is one), so commands run at the same time never mix
// their output; the helper writes back the id and the exit status on one line (shorter than PIPE_BUF: atomic).
//
// A command line holds every word single-quoted for `eval`; a word with a newline or NUL cannot go through a line,
// and runs with execFile instead.
//
// When the helper dies (killed), the next command starts a new one. What the dead one had is sorted by what its
// output says, once all its background subshells are gone too (its stdout's end): each subshell writes `<id> +` before
// it runs its command, then `<id> <status>`. A command whose subshell outlived the helper answers as usual. One with
// no `+` never ran: it runs again on the new helper (always safe; once). One that began but whose answer never came
// (its subshell was killed as well) may or may not have done its work: it runs again only if the caller said it is
// idempotent (RunOptions.idempotent), else it fails with CommandLost, and the caller decides (a CNI ADD is undone
// with DEL and made again, as the CNI spec wants no second ADD without a DEL between).
import { ChildProcess, execFile, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface RunResult {
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** Variables added to berthd's environment for the command. */
  env?: Record<string, string>;
  /** Written to the command's standard input (else it reads /dev/null). */
  input?: string;
  /** Running it twice does what running it once does: run again when the helper died while it ran. */
  idempotent?: boolean;
}

/** As execFile's failure: `code` is the exit status, stdout and stderr are attached. */
export class CommandFailed extends Error {
  constructor(
    readonly cmd: string,
    readonly code: number,
    readonly stdout: string,
    readonly stderr: string,
  ) {
    super(`Command failed: ${cmd}\n${stderr}`);
  }
}

/** The helper died while the command ran (`started`) or before: its outcome is not known, or it never ran. */
export class CommandLost extends Error {
  constructor(
    readonly cmd: string,
    readonly started: boolean,
  ) {
    super(started ? `the command helper died while ${cmd} ran: whether it did its work is not known` : `the command helper died twice before ${cmd} ran`);
  }
}

const SCRIPT = `while IFS= read -r line; do
  eval "set -- $line"
  id=$1; i=$2; o=$3; e=$4; shift 4
  ( echo "$id +"; "$@" <"$i" >"$o" 2>"$e"; echo "$id $?" ) &
done`;

const quote = (w: string) => `'${w.replace(/'/g, `'\\''`)}'`;

interface Pending {
  resolve: (code: number) => void;
  reject: (err: Error) => void;
  /** its subshell said it runs the command */
  started: boolean;
  helper: Helper;
}

/** One helper `sh` and the commands it was given that have not answered. */
interface Helper {
  child: ChildProcess;
  ids: Set<number>;
  buf: string;
}

/** The helper died: whether the command had begun (internal; run() turns it into a retry or CommandLost). */
class HelperDied extends Error {
  constructor(readonly started: boolean) {
    super('the command helper exited');
  }
}

export class Spawner {
  private current?: Helper;
  /** helpers whose output is still read (a dead one's until its last subshell is gone) */
  private readonly helpers = new Set<Helper>();
  private dir?: string;
  private readonly pending = new Map<number, Pending>();
  private next = 0;

  /**
   * Runs `file` with `args`; resolves with its output when it exits 0, rejects with CommandFailed otherwise, or with
   * CommandLost when the helper died under it and running it again is not known to be safe.
   */
  async run(file: string, args: string[], opts: RunOptions = {}): Promise<RunResult> {
    const env = Object.entries(opts.env ?? {}).map(([k, v]) => `${k}=${v}`);
    const words = env.length ? ['env', ...env, file, ...args] : [file, ...args];
    if (words.some((w) => /[\n\0]/.test(w))) return this.direct(file, args, opts);
    const cmd = [file, ...args].join(' ');
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.once(cmd, words, opts);
      } catch (err) {
        if (!(err instanceof HelperDied)) throw err;
        if (attempt > 0 || (err.started && !opts.idempotent)) throw new CommandLost(cmd, err.started);
        // (never ran, or idempotent: once more, on a new helper)
      }
    }
  }

  private async once(cmd: string, words: string[], opts: RunOptions): Promise<RunResult> {
    const { helper, dir } = this.helper();
    const id = this.next++;
    const f = (ext: string) => path.join(dir, `${id}.${ext}`);
    const input = opts.input !== undefined ? f('in') : '/dev/null';
    try {
      if (opts.input !== undefined) fs.writeFileSync(input, opts.input);
      const code = await new Promise<number>((resolve, reject) => {
        this.pending.set(id, { resolve, reject, started: false, helper });
        helper.ids.add(id);
        this.hold();
        helper.child.stdin!.write(`${[String(id), input, f('out'), f('err'), ...words].map(quote).join(' ')}\n`);
      });
      const read = (p: string) => {
        try {
          return fs.readFileSync(p, 'utf8');
        } catch {
          return '';
        }
      };
      const stdout = read(f('out'));
      const stderr = read(f('err'));
      if (code !== 0) throw new CommandFailed(cmd, code, stdout, stderr);
      return { stdout, stderr };
    } finally {
      for (const ext of ['in', 'out', 'err']) fs.rmSync(f(ext), { force: true });
    }
  }

  /** Stops the helper (commands under way finish; their answers are no longer read). */
  close(): void {
    this.current?.child.stdin?.end();
    this.current = undefined;
    this.helpers.clear();
    for (const p of this.pending.values()) p.reject(new Error('the command helper was closed'));
    this.pending.clear();
    if (this.dir) fs.rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
  }

  private direct(file: string, args: string[], opts: RunOptions): Promise<RunResult> {
    return new Promise((resolve, reject) => {
      const c = execFile(file, args, { env: { ...process.env, ...opts.env }, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
        if (!err) return resolve({ stdout, stderr });
        const code = typeof (err as NodeJS.ErrnoException).code === 'number' ? Number((err as NodeJS.ErrnoException).code) : 1;
        reject(new CommandFailed([file, ...args].join(' '), code, stdout, stderr));
      });
      c.stdin?.on('error', () => undefined); // (a command that does not read its input: EPIPE)
      c.stdin?.end(opts.input ?? '');
    });
  }

  private helper(): { helper: Helper; dir: string } {
    if (this.current && this.dir) return { helper: this.current, dir: this.dir };
    const base = fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
    if (!this.dir) {
      removeStale(base);
      const dir = fs.mkdtempSync(path.join(base, `berth-run-${process.pid}-`));
      this.dir = dir;
      process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
    }
    const child = spawn('/bin/sh', ['-c', SCRIPT], { stdio: ['pipe', 'pipe', 'ignore'] });
    const h: Helper = { child, ids: new Set(), buf: '' };
    this.current = h;
    this.helpers.add(h);
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (s: string) => {
      h.buf += s;
      let nl: number;
      while ((nl = h.buf.indexOf('\n')) >= 0) {
        const [id, code] = h.buf.slice(0, nl).split(' ');
        h.buf = h.buf.slice(nl + 1);
        const p = this.pending.get(Number(id));
        if (!p) continue;
        if (code === '+') {
          p.started = true;
          continue;
        }
        this.pending.delete(Number(id));
        h.ids.delete(Number(id));
        p.resolve(Number(code));
      }
      this.hold();
    });
    // the helper is gone: the next command starts another
    const exited = () => {
      if (this.current === h) this.current = undefined;
    };
    // ... and so are the subshells it had started (they hold its stdout): what did not answer will not
    const ended = () => {
      exited();
      if (!this.helpers.delete(h)) return;
      for (const id of h.ids) {
        const p = this.pending.get(id);
        this.pending.delete(id);
        p?.reject(new HelperDied(p.started));
      }
      h.ids.clear();
      this.hold();
    };
    child.on('exit', exited);
    child.on('close', ended);
    child.on('error', ended);
    child.stdin!.on('error', () => undefined);
    // an idle helper never keeps berthd (or a test's process) alive; a command under way does (hold())
    child.unref();
    (child.stdin as unknown as { unref?: () => void }).unref?.();
    (child.stdout as unknown as { unref?: () => void }).unref?.();
    return { helper: h, dir: this.dir };
  }

  /** A helper's output keeps the process alive while commands it was given are under way. */
  private hold(): void {
    for (const h of this.helpers) {
      const out = h.child.stdout as unknown as { ref?: () => void; unref?: () => void } | undefined;
      if (h.ids.size) out?.ref?.();
      else out?.unref?.();
    }
  }
}

/** Folders of helpers whose berthd is gone (a SIGKILL leaves its folder behind). */
function removeStale(base: string): void {
  for (const name of fs.readdirSync(base)) {
    const pid = Number(/^berth-run-(\d+)-/.exec(name)?.[1]);
    if (!pid || pid === process.pid) continue;
    try {
      process.kill(pid, 0);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ESRCH') fs.rmSync(path.join(base, name), { recursive: true, force: true });
    }
  }
}

/** The process's helper. */
export const spawner = new Spawner();
