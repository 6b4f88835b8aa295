// Short commands (CNI plugins, mkfifo) run by a small helper process instead of berthd itself. Node forks the whole
// daemon for every child (libuv's fork on Linux): the main thread stops while the kernel copies the page tables of
// ~100 MB, a few ms on a quiet machine and tens of ms on a loaded one, and that stop fell on every container's start
// and exit (a CNI plugin per network, the loopback). The helper is a `sh` that reads one command a line and runs it
// in the background; forking a shell of a few hundred KB costs next to nothing. Standard input, output and error go
// through files in a private folder on tmpfs (/dev/shm when there is one), so commands run at the same time never mix
// their output; the helper writes back the id and the exit status on one line (shorter than PIPE_BUF: atomic).
//
// A command line holds every word single-quoted for `eval`; a word with a newline or NUL cannot go through a line,
// and runs with execFile instead. When the helper is gone (killed), the commands it had are failed (one may have run:
// running it again is not for this layer to decide) and the next one starts a new helper.
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

const SCRIPT = `while IFS= read -r line; do
  eval "set -- $line"
  id=$1; i=$2; o=$3; e=$4; shift 4
  ( "$@" <"$i" >"$o" 2>"$e"; echo "$id $?" ) &
done`;

const quote = (w: string) => `'${w.replace(/'/g, `'\\''`)}'`;

interface Pending {
  resolve: (code: number) => void;
  reject: (err: Error) => void;
}

export class Spawner {
  private child?: ChildProcess;
  private dir?: string;
  private readonly pending = new Map<number, Pending>();
  private next = 0;
  private buf = '';

  /** Runs `file` with `args`; resolves with its output when it exits 0, rejects with CommandFailed otherwise. */
  async run(file: string, args: string[], opts: RunOptions = {}): Promise<RunResult> {
    const env = Object.entries(opts.env ?? {}).map(([k, v]) => `${k}=${v}`);
    const words = env.length ? ['env', ...env, file, ...args] : [file, ...args];
    if (words.some((w) => /[\n\0]/.test(w))) return this.direct(file, args, opts);
    const { child, dir } = this.helper();
    const id = this.next++;
    const f = (ext: string) => path.join(dir, `${id}.${ext}`);
    const input = opts.input !== undefined ? f('in') : '/dev/null';
    try {
      if (opts.input !== undefined) fs.writeFileSync(input, opts.input);
      const code = await new Promise<number>((resolve, reject) => {
        this.pending.set(id, { resolve, reject });
        this.hold();
        child.stdin!.write(`${[String(id), input, f('out'), f('err'), ...words].map(quote).join(' ')}\n`);
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
      if (code !== 0) throw new CommandFailed([file, ...args].join(' '), code, stdout, stderr);
      return { stdout, stderr };
    } finally {
      for (const ext of ['in', 'out', 'err']) fs.rmSync(f(ext), { force: true });
    }
  }

  /** Stops the helper (commands under way finish; their answers are no longer read). */
  close(): void {
    this.child?.stdin?.end();
    this.child = undefined;
    this.failAll(new Error('the command helper was closed'));
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

  private helper(): { child: ChildProcess; dir: string } {
    if (this.child && this.dir) return { child: this.child, dir: this.dir };
    const base = fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
    if (!this.dir) {
      removeStale(base);
      const dir = fs.mkdtempSync(path.join(base, `berth-run-${process.pid}-`));
      this.dir = dir;
      process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
    }
    const child = spawn('/bin/sh', ['-c', SCRIPT], { stdio: ['pipe', 'pipe', 'ignore'] });
    this.child = child;
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (s: string) => {
      this.buf += s;
      let nl: number;
      while ((nl = this.buf.indexOf('\n')) >= 0) {
        const [id, code] = this.buf.slice(0, nl).split(' ');
        this.buf = this.buf.slice(nl + 1);
        const p = this.pending.get(Number(id));
        this.pending.delete(Number(id));
        p?.resolve(Number(code));
      }
      this.hold();
    });
    const gone = () => {
      if (this.child !== child) return;
      this.child = undefined;
      this.buf = '';
      this.failAll(new Error('the command helper exited'));
    };
    child.on('exit', gone);
    child.on('error', gone);
    child.stdin!.on('error', () => undefined);
    // an idle helper never keeps berthd (or a test's process) alive; a command under way does (hold())
    child.unref();
    (child.stdin as unknown as { unref?: () => void }).unref?.();
    (child.stdout as unknown as { unref?: () => void }).unref?.();
    return { child, dir: this.dir };
  }

  /** The helper's output keeps the process alive while commands are under way. */
  private hold(): void {
    const out = this.child?.stdout as unknown as { ref?: () => void; unref?: () => void } | undefined;
    if (this.pending.size) out?.ref?.();
    else out?.unref?.();
  }

  private failAll(err: Error): void {
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
    this.hold();
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
