// berth's error kinds. Services and the containerd boundary throw these; src/http/respond.ts maps a kind to a
// status and writes the body the reference engine writes for the request's API version.

import * as fs from 'node:fs';
import * as path from 'node:path';

export type ErrorKind =
  | 'InvalidParameter'
  | 'NotFound'
  | 'Conflict'
  | 'NotModified'
  | 'Forbidden'
  | 'NotAcceptable'
  | 'Unauthorized'
  | 'Unavailable'
  | 'TooManyRequests'
  | 'NotImplemented'
  | 'System';

export class BerthError extends Error {
  constructor(readonly kind: ErrorKind, message: string, override readonly cause?: unknown) {
    super(message);
    this.name = kind;
  }
}

export const invalidParameter = (msg: string): BerthError => new BerthError('InvalidParameter', msg);
export const notFound = (msg: string): BerthError => new BerthError('NotFound', msg);
export const conflict = (msg: string): BerthError => new BerthError('Conflict', msg);
export const notModified = (msg = ''): BerthError => new BerthError('NotModified', msg);
export const forbidden = (msg: string): BerthError => new BerthError('Forbidden', msg);
export const notAcceptable = (msg: string): BerthError => new BerthError('NotAcceptable', msg);
export const unauthorized = (msg: string): BerthError => new BerthError('Unauthorized', msg);
export const notImplemented = (msg: string): BerthError => new BerthError('NotImplemented', msg);
export const unavailable = (msg: string): BerthError => new BerthError('Unavailable', msg);
export const systemError = (msg: string, cause?: unknown): BerthError => new BerthError('System', msg, cause);
/**
 * A container start refused by what it finds (a device or Blkio*Device path missing, a container to join gone or
 * stopped, an address that cannot be had): the container stays created with the message as its error and exit code
 * 128, and the start answers `answer`.
 */
export class StartRefusal extends Error {
  constructor(readonly answer: BerthError) {
    super(answer.message);
  }
}

/** The engine's answer to an operation that needs a running container while its restart policy waits to restart it. */
export const restartingConflict = (id: string): BerthError => conflict(`Container ${id} is restarting, wait until the container is running`);

/** The one kind → HTTP status map. */
export const STATUS_OF_KIND: Record<ErrorKind, number> = {
  InvalidParameter: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  NotAcceptable: 406,
  Conflict: 409,
  NotModified: 304,
  NotImplemented: 501,
  Unavailable: 503,
  TooManyRequests: 429,
  System: 500,
};

export function isKind(err: unknown, kind: ErrorKind): err is BerthError {
  return err instanceof BerthError && err.kind === kind;
}

/**
 * A full disk (ENOSPC, EDQUOT) as Go's PathError words it (`mkdir /var/lib/berth/x: no space left on device`), or
 * undefined for other errors. Node's asynchronous recursive mkdir reports ENOENT where the disk is full (Node 20):
 * such an ENOENT on a filesystem with no free block or inode is a full disk too.
 */
export function diskFullMessage(err: unknown): string | undefined {
  const e = err as NodeJS.ErrnoException | undefined;
  if (!e || typeof e !== 'object' || typeof e.code !== 'string') return undefined;
  const full = e.code === 'ENOSPC' || e.code === 'EDQUOT' || (e.code === 'ENOENT' && e.syscall === 'mkdir' && typeof e.path === 'string' && noRoomAt(e.path));
  if (!full) return undefined;
  const what = e.code === 'EDQUOT' ? 'disk quota exceeded' : 'no space left on device';
  const op = e.syscall ?? 'write';
  return e.path ? `${op} ${e.path}: ${what}` : `${op}: ${what}`;
}

/** Whether the filesystem holding `p` (or its nearest existing parent) has no free block or inode left. */
function noRoomAt(p: string): boolean {
  for (let d = path.dirname(p); ; d = path.dirname(d)) {
    try {
      const s = fs.statfsSync(d);
      return s.bavail === 0 || s.ffree === 0;
    } catch {
      if (d === path.dirname(d)) return false;
    }
  }
}

/** Any thrown value as a BerthError (unknown errors become System with their message; a full disk is worded as Go's). */
export function asBerthError(err: unknown): BerthError {
  if (err instanceof BerthError) return err;
  const full = diskFullMessage(err);
  if (full) return systemError(full, err);
  const msg = err instanceof Error ? err.message : String(err);
  return systemError(msg, err);
}
