import { asBerthError, BerthError, conflict, invalidParameter, notFound, STATUS_OF_KIND, notModified } from '../../src/errors';
import { fromGrpcError, ignoreNotFound, isGrpcNotFound } from '../../src/containerd/errors';

describe('error kinds', () => {
  test('each kind has its status', () => {
    expect(STATUS_OF_KIND[invalidParameter('x').kind]).toBe(400);
    expect(STATUS_OF_KIND[notFound('x').kind]).toBe(404);
    expect(STATUS_OF_KIND[conflict('x').kind]).toBe(409);
    expect(STATUS_OF_KIND[notModified().kind]).toBe(304);
    expect(STATUS_OF_KIND.NotAcceptable).toBe(406);
    expect(STATUS_OF_KIND.Forbidden).toBe(403);
    expect(STATUS_OF_KIND.System).toBe(500);
  });

  test('unknown errors become System with their message', () => {
    const e = asBerthError(new Error('boom'));
    expect(e).toBeInstanceOf(BerthError);
    expect(e.kind).toBe('System');
    expect(e.message).toBe('boom');
    expect(asBerthError('text').message).toBe('text');
  });

  test('gRPC codes map to kinds at the containerd boundary', () => {
    expect(fromGrpcError({ code: 5, details: 'container x: not found' }).kind).toBe('NotFound');
    expect(fromGrpcError({ code: 6, details: 'exists' }).kind).toBe('Conflict');
    expect(fromGrpcError({ code: 3, details: 'bad' }).kind).toBe('InvalidParameter');
    expect(fromGrpcError({ code: 14, details: 'locked' }).kind).toBe('Unavailable');
    expect(fromGrpcError({ code: 2, details: 'OCI runtime create failed' }).kind).toBe('System');
    expect(fromGrpcError({ code: 2, details: 'OCI runtime create failed' }).message).toBe('OCI runtime create failed');
  });

  test('ignoreNotFound swallows only NOT_FOUND', async () => {
    expect(await ignoreNotFound(async () => { throw fromGrpcError({ code: 5, details: 'gone' }); })).toBeUndefined();
    expect(isGrpcNotFound(fromGrpcError({ code: 5 }))).toBe(true);
    await expect(ignoreNotFound(async () => { throw fromGrpcError({ code: 2, details: 'x' }); })).rejects.toThrow('x');
  });
});
