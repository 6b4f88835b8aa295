// FIFOs for task I/O (cookbook §6.1): made with mkfifo(1), read sides opened O_RDONLY|O_NONBLOCK before the task
// exists, stdin opened O_RDWR|O_NONBLOCK once the task (or exec) is started.
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { CommandLost, spawner } from '../spawner';

export async function mkfifos(paths: string[]): Promise<void> {
  const missing = paths.filter((p) => !fs.existsSync(p));
  if (!missing.length) return;
  try {
    await spawner.run('mkfifo', ['-m', '0600', ...missing]);
  } catch (err) {
    // the command helper died while mkfifo ran: the ones it did not make yet, once more
    if (!(err instanceof CommandLost)) throw err;
    const left = missing.filter((p) => !fs.existsSync(p));
    if (left.length) await spawner.run('mkfifo', ['-m', '0600', ...left]);
  }
}

/** Makes the FIFOs named that do not exist yet. */
export type FifoMaker = (paths: string[]) => Promise<void>;

/**
 * FIFOs made ahead of need, many per mkfifo(1) run, and renamed into place: Node has no mkfifo call, and spawning a
 * process per container start costs the daemon's main thread a fork of its whole address space (the largest part
 * of a start's CPU). The spares live in `dir`, which must be on the file system of the FIFOs' folders (rename).
 * Spares left by an earlier berth are FIFOs nobody opened, and are used as they are.
 */
export class FifoPool {
  private spare: string[] | undefined;
  private filling?: Promise<void>;
  private n = 0;
  private readonly prefix = `${process.pid}-${Date.now().toString(36)}`;

  constructor(private readonly dir: string, private readonly batch = 64) {}

  readonly make: FifoMaker = async (paths) => {
    const missing = paths.filter((p) => !fs.existsSync(p));
    for (const p of missing) fs.renameSync(await this.take(), p);
  };

  private async take(): Promise<string> {
    for (;;) {
      if (this.spare === undefined) this.spare = this.leftOver();
      const p = this.spare.pop();
      if (this.spare.length < this.batch / 4 && !this.filling) this.filling = this.fill().finally(() => (this.filling = undefined));
      if (p) return p;
      await this.filling;
    }
  }

  private leftOver(): string[] {
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    return fs.readdirSync(this.dir).map((f) => path.join(this.dir, f));
  }

  private async fill(): Promise<void> {
    const names = Array.from({ length: this.batch }, () => path.join(this.dir, `${this.prefix}-${this.n++}`));
    await mkfifos(names);
    this.spare!.unshift(...names);
  }
}

/** A FIFO's read side, opened O_RDONLY|O_NONBLOCK (a reader on another thread wraps the fd). */
export function openReadFd(path: string): number {
  return fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
}

/**
 * A readable socket over a FIFO's read side; never blocks a thread while no writer is there. With `onread`, each
 * read goes into `buffer` and is handed to `onread` (no 'data' events; the bytes are valid during the call only).
 */
export function openReader(path: string, onread?: (n: number) => void, buffer?: Buffer): net.Socket {
  return readerOnFd(openReadFd(path), onread, buffer);
}

/** openReader over a read side already open as `fd` (the socket owns it from now on). */
export function readerOnFd(fd: number, onread?: (n: number) => void, buffer?: Buffer): net.Socket {
  if (onread && buffer) return new net.Socket({ fd, readable: true, writable: false, onread: { buffer, callback: (n: number) => (onread(n), true) } } as net.SocketConstructorOpts);
  return new net.Socket({ fd, readable: true, writable: false });
}

/**
 * A writable socket over a FIFO, for stdin. Opened O_RDWR (Linux allows it on a FIFO; the read side is never read):
 * the shim opens its reader in a goroutine of its own, which may not have run when Start returns, and an
 * O_WRONLY|O_NONBLOCK open would then fail with ENXIO and what the client sent first would be lost (seen as an
 * exec's `cat` answering nothing). Written bytes wait in the pipe until the shim reads them.
 */
export function openWriter(path: string): net.Socket {
  const fd = fs.openSync(path, fs.constants.O_RDWR | fs.constants.O_NONBLOCK);
  return new net.Socket({ fd, readable: false, writable: true });
}
