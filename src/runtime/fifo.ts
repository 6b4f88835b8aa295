// FIFOs for task I/O (cookbook §6.1): made with mkfifo(1), read sides opened O_RDONLY|O_NONBLOCK before the task
// exists, stdin opened O_WRONLY|O_NONBLOCK only after the shim has opened its end.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import { promisify } from 'node:util';

const execFileP = promisify(execFile);

export async function mkfifos(paths: string[]): Promise<void> {
  const missing = paths.filter((p) => !fs.existsSync(p));
  if (missing.length) await execFileP('mkfifo', ['-m', '0600', ...missing]);
}

/**
 * A readable socket over a FIFO's read side; never blocks a thread while no writer is there. With `onread`, each
 * read goes into `buffer` and is handed to `onread` (no 'data' events; the bytes are valid during the call only).
 */
export function openReader(path: string, onread?: (n: number) => void, buffer?: Buffer): net.Socket {
  const fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  if (onread && buffer) return new net.Socket({ fd, readable: true, writable: false, onread: { buffer, callback: (n: number) => (onread(n), true) } } as net.SocketConstructorOpts);
  return new net.Socket({ fd, readable: true, writable: false });
}

/** A writable socket over a FIFO's write side (after the reader exists, else ENXIO). */
export function openWriter(path: string): net.Socket {
  const fd = fs.openSync(path, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
  return new net.Socket({ fd, readable: false, writable: true });
}
