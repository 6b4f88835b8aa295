// ClusterState.patient() (src/cluster/state.ts): an API read waits out a leaderless spell of up to
// LEADERLESS_WAIT_MS (an etcd election after a membership change), then answers NO_LEADER at once, as a manager of
// the reference does once quorum is lost. No etcd is reached: the reads are functions of the test.
import { ClusterState, hostFailure, LEADERLESS_WAIT_MS, NO_LEADER, retriable } from '../../src/cluster/state';
import { castGrpcError } from 'etcd3';
import { systemError } from '../../src/errors';

const logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined } as never;
let state: ClusterState;

beforeEach(() => {
  jest.useFakeTimers();
  state = new ClusterState(['http://127.0.0.1:1'], undefined, logger);
});
afterEach(() => {
  state.client.close();
  jest.useRealTimers();
});

/** A read that fails with NO_LEADER `n` times, then answers 'ok'. */
function failing(n: number): jest.Mock<Promise<string>> {
  let left = n;
  return jest.fn(async () => {
    if (left-- > 0) throw systemError(NO_LEADER, new Error('etcdserver: request timed out'));
    return 'ok';
  });
}

async function settle<T>(p: Promise<T>): Promise<{ value?: T; error?: string }> {
  const out = p.then((value) => ({ value }), (e: Error) => ({ error: e.message }));
  await jest.advanceTimersByTimeAsync(2 * LEADERLESS_WAIT_MS);
  return out;
}

test('an election is waited out: the read answers once the cluster has a leader again', async () => {
  const read = failing(6);
  expect(await settle(state.patient(read))).toEqual({ value: 'ok' });
  expect(read).toHaveBeenCalledTimes(7);
});

test('a cluster leaderless for longer answers NO_LEADER; the next read at once; a success ends the spell', async () => {
  const never = failing(Infinity);
  const t0 = Date.now();
  expect(await settle(state.patient(never))).toEqual({ error: NO_LEADER });
  const calls = never.mock.calls.length;
  expect(calls).toBeGreaterThan(10);
  expect(Date.now() - t0).toBeGreaterThanOrEqual(LEADERLESS_WAIT_MS);
  // still leaderless: one try, then the answer
  expect(await settle(state.patient(never))).toEqual({ error: NO_LEADER });
  expect(never.mock.calls.length).toBe(calls + 1);
  // the background rounds saw a leader: a new spell is waited out again
  state.sawLeader();
  const read = failing(3);
  expect(await settle(state.patient(read))).toEqual({ value: 'ok' });
});

test('other errors are not retried', async () => {
  const read = jest.fn(async () => {
    throw systemError('boom', new Error('boom'));
  });
  expect(await settle(state.patient(read))).toEqual({ error: 'boom' });
  expect(read).toHaveBeenCalledTimes(1);
});

// The etcd client's fault policies (state.ts): which failures count against a host (its circuit opens after 3 in a
// row, and the node's calls skip it for 5 s) and which are tried again at once.
describe('fault classes of etcd calls', () => {
  const grpc = (code: number, message: string) => castGrpcError(Object.assign(new Error(message), { code }));

  test("etcd's leaderless answers, a stream or channel etcd3 ended itself: tried again, not the host's failure", () => {
    for (const m of ['14 UNAVAILABLE: Channel closed before call started', '14 UNAVAILABLE: etcdserver: leader changed', '14 UNAVAILABLE: etcdserver: no leader', '14 UNAVAILABLE: etcdserver: request timed out', '14 UNAVAILABLE: etcdserver: request timed out, possibly due to previous leader failure']) {
      expect([m, retriable(grpc(14, m)), hostFailure(grpc(14, m))]).toEqual([m, true, false]);
    }
    // etcd3 cancels its watch stream when the last watcher goes (a campaign won)
    const cancelled = grpc(1, '1 CANCELLED: Cancelled on client');
    expect([retriable(cancelled), hostFailure(cancelled)]).toEqual([true, false]);
  });

  test('an unreachable host, a dropped connection, no answer in time: the host failed', () => {
    for (const [code, m] of [
      [14, '14 UNAVAILABLE: No connection established. Last error: Error: connect ECONNREFUSED 127.0.0.41:2379'],
      [14, '14 UNAVAILABLE: Connection dropped'],
      [4, '4 DEADLINE_EXCEEDED: Deadline exceeded'],
    ] as const) {
      expect([m, retriable(grpc(code, m)), hostFailure(grpc(code, m))]).toEqual([m, true, true]);
    }
  });

  test("etcd's refusals of a reconfiguration are neither", () => {
    const m = '14 UNAVAILABLE: etcdserver: unhealthy cluster';
    expect([retriable(grpc(14, m)), hostFailure(grpc(14, m))]).toEqual([false, false]);
  });
});
