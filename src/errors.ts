// berth's error kinds. Services and the containerd boundary throw these; src/http/respond.ts maps a kind to a
// status and writes the body the reference engine writes for the request's API version.

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

/** Any thrown value as a BerthError (unknown errors become System with their message). */
export function asBerthError(err: unknown): BerthError {
  if (err instanceof BerthError) return err;
  const msg = err instanceof Error ? err.message : String(err);
  return systemError(msg, err);
}
