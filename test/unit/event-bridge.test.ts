// The containerd event subscription while containerd is away: one subscription at a time, each next one after a
// growing, bounded, jittered wait, and back to quick once containerd accepts one. grpc-js ends a failed stream with
// both 'end' and 'error'; the bridge once answered each with a new subscription, so their number doubled at every
// failure (a berthd whose containerd was stopped reached 100 % CPU and 1.5 GB).
import { EventEmitter } from 'node:events';
import type { Containerd } from '../../src/containerd/client';
import { backoffMs } from '../../src/containerd/backoff';
import { EventBridge } from '../../src/events/bridge';
import * as imageApi from '../../src/containerd/images';
import { silentLogger } from '../../src/log';

class FakeStream extends EventEmitter {
  cancelled = false;
  cancel(): void {
    this.cancelled = true;
  }
}

function fakeContainerd(): { ctr: Containerd; streams: FakeStream[]; at: number[] } {
  const streams: FakeStream[] = [];
  const at: number[] = [];
  const ctr = {
    namespace: 'ns',
    imageChanges: { generation: 0, watched: false },
    metadata: () => ({}),
    any: { unpack: () => undefined },
    raw: {
      events: {
        Subscribe: () => {
          const s = new FakeStream();
          streams.push(s);
          at.push(Date.now());
          return s;
        },
      },
    },
  } as unknown as Containerd;
  return { ctr, streams, at };
}

/** A subscription refused as grpc-js reports it: 'end', then 'error'. */
function refuse(s: FakeStream): void {
  s.emit('end');
  s.emit('error', new Error('14 UNAVAILABLE: No connection established'));
}

beforeEach(() => jest.useFakeTimers({ now: 0 }));
afterEach(() => jest.useRealTimers());

test('the wait between attempts doubles from 200 ms to at most 5 s, with jitter', () => {
  expect(backoffMs(1, 200, 5000, () => 1)).toBe(200);
  expect(backoffMs(1, 200, 5000, () => 0)).toBe(100);
  expect(backoffMs(2, 200, 5000, () => 1)).toBe(400);
  expect(backoffMs(6, 200, 5000, () => 1)).toBe(5000);
  expect(backoffMs(1e6, 200, 5000, () => 1)).toBe(5000);
  expect(backoffMs(1e6, 200, 5000, () => 0)).toBe(2500);
});

test('containerd away: one subscription at a time, at most one every few seconds, quick again once one is accepted', () => {
  const { ctr, streams, at } = fakeContainerd();
  const bridge = new EventBridge(ctr, { onOOM: () => undefined }, silentLogger());
  bridge.start();
  // containerd refuses every subscription for 60 s
  for (let t = 0; t < 60_000; t += 50) {
    const open = streams.filter((s) => s.listenerCount('end') > 0 && !(s as unknown as { refused?: boolean }).refused);
    for (const s of open) {
      (s as unknown as { refused?: boolean }).refused = true;
      refuse(s);
    }
    jest.advanceTimersByTime(50);
  }
  // doubling waits reach 2.5-5 s: about 20 subscriptions in 60 s (the old bridge: 2^n)
  expect(streams.length).toBeGreaterThan(8);
  expect(streams.length).toBeLessThan(30);
  const gaps = at.slice(1).map((t, i) => t - at[i]);
  expect(gaps.slice(-5).every((g) => g >= 2500 && g <= 5050)).toBe(true);
  // containerd back: the subscription is accepted (headers), then containerd restarts and closes it
  jest.advanceTimersByTime(5100);
  const last = streams[streams.length - 1];
  last.emit('metadata', {});
  const n = streams.length;
  last.emit('error', new Error('14 UNAVAILABLE'));
  last.emit('end');
  jest.advanceTimersByTime(200);
  expect(streams.length).toBe(n + 1); // subscribed again within 200 ms, once
  bridge.close();
  expect(streams[streams.length - 1].cancelled).toBe(true);
  jest.advanceTimersByTime(10_000);
  expect(streams.length).toBe(n + 1);
});

test('events reach the handlers; a close after close() subscribes nothing', () => {
  const { ctr, streams } = fakeContainerd();
  (ctr as unknown as { any: { unpack: () => unknown } }).any.unpack = () => ({ container_id: 'c1' });
  const oom: string[] = [];
  const bridge = new EventBridge(ctr, { onOOM: (id) => oom.push(id) }, silentLogger());
  bridge.start();
  bridge.start(); // already subscribed: no second stream
  expect(streams.length).toBe(1);
  streams[0].emit('data', { topic: '/tasks/oom', event: { type_url: 'x', value: Buffer.alloc(0) } });
  expect(oom).toEqual(['c1']);
  bridge.close();
  refuse(streams[0]);
  jest.advanceTimersByTime(10_000);
  expect(streams.length).toBe(1);
});

// ImageService keeps the image list while imageApi.generation stays the same: defined only while a stream that has
// delivered (its headers come with containerd's first event) watches the namespace's /images/ events.
test('image changes: watched once the stream is open, each /images/ event and each gap changes the generation', () => {
  const { ctr, streams } = fakeContainerd();
  const bridge = new EventBridge(ctr, { onOOM: () => undefined }, silentLogger());
  bridge.start();
  expect(imageApi.generation(ctr)).toBeUndefined();
  streams[0].emit('metadata', {});
  const g = imageApi.generation(ctr);
  expect(g).toEqual(expect.any(Number));
  streams[0].emit('data', { topic: '/tasks/exit', event: { type_url: 'x', value: Buffer.alloc(0) } });
  expect(imageApi.generation(ctr)).toBe(g);
  streams[0].emit('data', { topic: '/images/update', event: { type_url: 'x', value: Buffer.alloc(0) } });
  expect(imageApi.generation(ctr)).toBe(g! + 1);
  refuse(streams[0]);
  expect(imageApi.generation(ctr)).toBeUndefined();
  jest.advanceTimersByTime(1000);
  streams[1].emit('metadata', {});
  expect(imageApi.generation(ctr)).toBeGreaterThan(g! + 1); // (whatever changed in the gap went unseen)
  bridge.close();
  expect(imageApi.generation(ctr)).toBeUndefined();
});

// A subscription is known to be in effect only once an event came through it (containerd sends a Subscribe's headers
// with its first event): the bridge publishes a probe of its own until one arrives, then tells onInEffect (berth then
// lists the tasks for the exits the stream could not carry), once per subscription.
test('a new subscription: probes until an event arrives, then onInEffect once; again after a reconnect', async () => {
  const { ctr, streams } = fakeContainerd();
  const published: number[] = [];
  (ctr.raw.events as unknown as { Publish: unknown }).Publish = (req: { topic: string }, _md: unknown, _o: unknown, cb: (err: Error | null) => void) => {
    expect(req.topic).toBe('/berth/probe');
    published.push(Date.now());
    cb(null);
  };
  const inEffect: (() => boolean)[] = [];
  const bridge = new EventBridge(ctr, { onOOM: () => undefined, onInEffect: (current) => inEffect.push(current) }, silentLogger());
  bridge.start();
  const flush = async (ms: number) => {
    for (let t = 0; t < ms; t += 50) {
      await Promise.resolve();
      jest.advanceTimersByTime(50);
      await Promise.resolve();
    }
  };
  await flush(1000);
  // at once, then 100, 200, 400 ms later (the Publishes containerd handled before the subscription was registered)
  expect(published.length).toBeGreaterThanOrEqual(3);
  expect(published.length).toBeLessThanOrEqual(5);
  expect(inEffect).toEqual([]);
  streams[0].emit('metadata', {});
  streams[0].emit('data', { topic: '/berth/probe', event: { type_url: 'berth.probe', value: Buffer.alloc(0) } });
  streams[0].emit('data', { topic: '/berth/probe', event: { type_url: 'berth.probe', value: Buffer.alloc(0) } });
  expect(inEffect.length).toBe(1);
  expect(inEffect[0]()).toBe(true);
  const n = published.length;
  await flush(5000);
  expect(published.length).toBe(n); // no probe once in effect
  // containerd restarts: the subscription closes, the next one probes again and is told once it is in effect
  refuse(streams[0]);
  expect(inEffect[0]()).toBe(false);
  await flush(600);
  expect(streams.length).toBe(2);
  expect(published.length).toBeGreaterThan(n);
  streams[1].emit('data', { topic: '/tasks/exit', event: { type_url: 'x', value: Buffer.alloc(0) } });
  expect(inEffect.length).toBe(2);
  expect(inEffect[1]()).toBe(true);
  bridge.close();
  expect(inEffect[1]()).toBe(false);
});
