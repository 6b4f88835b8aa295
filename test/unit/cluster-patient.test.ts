// ClusterState.patient() (src/cluster/state.ts): an API read waits out a leaderless spell of up to
// LEADERLESS_WAIT_MS (an etcd election after a membership change), then answers NO_LEADER at once, as a manager of
// the reference does once quorum is lost. No etcd is reached: the reads are functions of the test.
import { ClusterState, LEADERLESS_WAIT_MS, NO_LEADER } from '../../src/cluster/state';
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
