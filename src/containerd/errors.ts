// gRPC errors from containerd become berth's error kinds here, at the boundary, and nowhere else.
import { status as GrpcStatus } from '@grpc/grpc-js';
import { BerthError, ErrorKind } from '../errors';

const KIND_OF_CODE: Partial<Record<number, ErrorKind>> = {
  [GrpcStatus.NOT_FOUND]: 'NotFound',
  [GrpcStatus.ALREADY_EXISTS]: 'Conflict',
  [GrpcStatus.INVALID_ARGUMENT]: 'InvalidParameter',
  [GrpcStatus.FAILED_PRECONDITION]: 'Conflict',
  [GrpcStatus.UNAVAILABLE]: 'Unavailable',
  [GrpcStatus.UNIMPLEMENTED]: 'NotImplemented',
  [GrpcStatus.PERMISSION_DENIED]: 'Forbidden',
};

export interface GrpcLikeError {
  code?: number;
  details?: string;
  message?: string;
}

/** The gRPC status code of a containerd error (after fromGrpcError, on `.cause`). */
export function grpcCode(err: unknown): number | undefined {
  const e = err instanceof BerthError ? (err.cause as GrpcLikeError | undefined) : (err as GrpcLikeError | undefined);
  return typeof e?.code === 'number' ? e.code : undefined;
}

export function fromGrpcError(err: GrpcLikeError): BerthError {
  const kind = (err.code !== undefined && KIND_OF_CODE[err.code]) || 'System';
  const msg = err.details || err.message || 'containerd error';
  return new BerthError(kind, msg, err);
}

export const isGrpcNotFound = (err: unknown): boolean => grpcCode(err) === GrpcStatus.NOT_FOUND;
export const isGrpcAlreadyExists = (err: unknown): boolean => grpcCode(err) === GrpcStatus.ALREADY_EXISTS;

/** Runs fn, treating containerd NOT_FOUND as success (teardown paths). */
export async function ignoreNotFound<T>(fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (err) {
    if (isGrpcNotFound(err)) return undefined;
    throw err;
  }
}
