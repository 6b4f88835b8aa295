// Events published during a request reach subscribers after its answer (src/http/answer.ts, src/events/bus.ts):
// the bus's queues with a hand-made hold, then the real app with routes that publish while they answer.
import * as http from 'node:http';
import * as net from 'node:net';
import { EventBus } from '../../src/events/bus';
import { AnswerHold, currentAnswer, unreleasedHolds } from '../../src/http/answer';
import type { Route } from '../../src/http/app';
import { hijack } from '../../src/http/hijack';
import type { EngineEvent } from '../../src/types/event';
import { serveRoutes } from '../helpers/serve-routes';
import { containerRoutes, ContainersBackend, ExecIdsBackend } from '../../src/handlers/containers';
import { fake } from '../helpers/fakes';

const ids = (es: EngineEvent[]) => es.map((e) => e.Actor.ID);

test('a held event and everything after it wait, per subscriber, in publish order', () => {
  let hold: AnswerHold | undefined;
  const bus = new EventBus({ holdOf: () => hold?.current() });
  const all: EngineEvent[] = [];
  const networks: EngineEvent[] = [];
  bus.subscribe().onEvent((e) => all.push(e));
  bus.subscribe((e) => e.Type === 'network').onEvent((e) => networks.push(e));

  const h = (hold = new AnswerHold());
  bus.publish('container', 'destroy', 'a'); // held
  hold = undefined;
  bus.publish('network', 'create', 'b'); // outside any request, but behind 'a' for the first subscriber
  expect(ids(all)).toEqual([]);
  expect(ids(networks)).toEqual(['b']); // nothing held before it there
  bus.publish('container', 'die', 'c');
  expect(bus.history().map((e) => e.Actor.ID)).toEqual(['a', 'b', 'c']); // the ring has them as published

  h.release();
  expect(ids(all)).toEqual(['a', 'b', 'c']);
  bus.publish('container', 'die', 'd');
  expect(ids(all)).toEqual(['a', 'b', 'c', 'd']); // nothing waits: during the publish again

  // a released hold holds nothing; two holds released out of order deliver up to the first still held
  hold = h;
  bus.publish('container', 'start', 'e');
  expect(ids(all).at(-1)).toBe('e');
  const h1 = (hold = new AnswerHold());
  bus.publish('container', 'kill', 'f');
  const h2 = (hold = new AnswerHold());
  bus.publish('container', 'stop', 'g');
  h2.release();
  expect(ids(all).at(-1)).toBe('e');
  h1.release();
  expect(ids(all).slice(-2)).toEqual(['f', 'g']);
});

test('a hold lapses a while after the last event queued behind it when its answer has not come (a long stop)', () => {
  jest.useFakeTimers();
  try {
    const hold = new AnswerHold(1000);
    let current: AnswerHold | undefined = hold;
    const bus = new EventBus({ holdOf: () => current?.current() });
    const all: EngineEvent[] = [];
    bus.subscribe().onEvent((e) => all.push(e));
    bus.publish('container', 'kill', 'a'); // the stop's signal
    jest.advanceTimersByTime(600);
    bus.publish('container', 'kill', 'b'); // a later one restarts the while
    jest.advanceTimersByTime(600);
    expect(ids(all)).toEqual([]);
    jest.advanceTimersByTime(400);
    expect(ids(all)).toEqual(['a', 'b']); // in publish order, 1 s after the last
    // the request still runs: what it publishes now is held again (a new epoch), to its answer or the next lapse
    bus.publish('container', 'die', 'c');
    jest.advanceTimersByTime(999);
    expect(ids(all)).toEqual(['a', 'b']);
    jest.advanceTimersByTime(1);
    expect(ids(all)).toEqual(['a', 'b', 'c']);
    bus.publish('container', 'destroy', 'c2'); // a force DELETE's destroy after a slow kill: after its answer
    current = undefined;
    bus.publish('network', 'disconnect', 'x'); // outside any request meanwhile: behind it (publish order)
    current = hold;
    expect(ids(all)).toEqual(['a', 'b', 'c']);
    hold.release();
    expect(ids(all)).toEqual(['a', 'b', 'c', 'c2', 'x']);
    expect(jest.getTimerCount()).toBe(0);
    bus.publish('container', 'die', 'y'); // the answer is out: at once
    expect(ids(all).at(-1)).toBe('y');
    current = undefined;
    // an answer that comes first releases at once, and the lapse timer goes
    const h2 = (current = new AnswerHold(1000));
    bus.publish('container', 'destroy', 'd');
    h2.release();
    expect(ids(all).at(-1)).toBe('d');
    expect(jest.getTimerCount()).toBe(0);
  } finally {
    jest.useRealTimers();
  }
});

test('a request that goes on to wait sends what it held (sendHeld: a kill\'s kill and die go out before its answer)', () => {
  jest.useFakeTimers();
  try {
    const hold = new AnswerHold(1000);
    let current: AnswerHold | undefined = hold;
    const bus = new EventBus({ holdOf: () => current?.current() });
    const all: EngineEvent[] = [];
    bus.subscribe().onEvent((e) => all.push(e));
    bus.publish('container', 'kill', 'a'); // the kill's signal: held
    current = undefined;
    bus.publish('container', 'die', 'b'); // the exit monitor's, outside the request: behind 'a'
    current = hold;
    expect(ids(all)).toEqual([]);
    bus.sendHeld(); // the kill waits for the exit now
    expect(ids(all)).toEqual(['a', 'b']);
    expect(jest.getTimerCount()).toBe(0); // (the lapse timer went with them)
    current = undefined;
    bus.publish('container', 'die', 'c'); // nothing held: at once
    current = hold;
    expect(ids(all)).toEqual(['a', 'b', 'c']);
    bus.publish('container', 'stop', 'd'); // published afterwards: held again, to the answer
    expect(ids(all)).toEqual(['a', 'b', 'c']);
    hold.release();
    expect(ids(all)).toEqual(['a', 'b', 'c', 'd']);
    bus.sendHeld(); // the answer is out: nothing to do
    current = undefined;
    bus.sendHeld(); // outside any request: nothing to do
    expect(jest.getTimerCount()).toBe(0);
  } finally {
    jest.useRealTimers();
  }
});

test('a subscriber with too many events held back is dropped as overflowed', () => {
  const hold = new AnswerHold();
  const bus = new EventBus({ holdOf: () => hold.current(), queueLimit: 2 });
  const sub = bus.subscribe();
  let overflowed = false;
  sub.onEvent(() => undefined);
  sub.onOverflow(() => (overflowed = true));
  for (const id of ['a', 'b', 'c']) bus.publish('image', 'tag', id);
  expect([overflowed, bus.listeners]).toEqual([true, 0]);
  hold.release();
});

describe('through the app', () => {
  const bus = new EventBus({ holdOf: currentAnswer });
  const seen: { id: string; answered: boolean }[] = [];
  // whether each request's answer is out, asked when its event is delivered
  const answered = new Map<string, () => boolean>();
  // the ids whose handler has published its event (a loaded machine may take longer than any fixed wait to get there)
  const published = new Set<string>();
  // whether a probe's handling found its hold
  const probed = new Map<string, boolean>();
  bus.subscribe().onEvent((e) => seen.push({ id: e.Actor.ID, answered: answered.get(e.Actor.ID)?.() ?? false }));
  const tick = () => new Promise((r) => setImmediate(r));
  // the streamed and hijacked answers last until the test ends them (no fixed wait: a loaded machine is slow)
  const ends = new Map<string, () => void>();
  const endOf = (id: string) => new Promise<void>((r) => ends.set(id, r));
  const until = async (cond: () => boolean) => {
    for (let i = 0; i < 1000 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  };
  const routes: Route[] = [
    {
      // as DELETE /containers/(id): publishes, then answers a while later
      method: 'delete',
      path: '/things/:id',
      handler: async (req, res) => {
        await tick();
        bus.publish('container', 'destroy', String(req.params.id));
        published.add(String(req.params.id));
        await new Promise((r) => setTimeout(r, 30));
        answered.set(String(req.params.id), () => res.writableFinished);
        res.status(204).end();
      },
    },
    {
      // a streamed answer: what it publishes after its head flows while it lasts
      method: 'post',
      path: '/stream/:id',
      handler: async (req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write('{}\n');
        answered.set(String(req.params.id), () => res.headersSent);
        const end = endOf(String(req.params.id));
        await new Promise((r) => setTimeout(r, 20));
        bus.publish('container', 'create', String(req.params.id));
        await end;
        res.end();
      },
    },
    {
      // a hijacked answer (attach, exec start)
      method: 'post',
      path: '/hijack/:id',
      handler: async (req, res) => {
        const { stream } = hijack(req, res);
        answered.set(String(req.params.id), () => true);
        const end = endOf(String(req.params.id));
        await tick();
        await tick();
        bus.publish('container', 'attach', String(req.params.id));
        await end;
        stream.end();
      },
    },
    {
      // waits for the test, then tells whether its handling still has a hold (answered once asked)
      method: 'post',
      path: '/probe/:id',
      handler: async (req, res) => {
        const id = String(req.params.id);
        await endOf(id);
        await tick();
        probed.set(id, currentAnswer() !== undefined);
        res.status(200).end();
      },
    },
    {
      // as POST /containers/(id)/wait: publishes nothing, answers when the test says (no hold)
      method: 'post',
      path: '/wait/:id',
      publishesNothing: true,
      handler: async (req, res) => {
        const id = String(req.params.id);
        await endOf(id);
        probed.set(id, currentAnswer() !== undefined);
        res.status(200).end();
      },
    },
    {
      // never answers: the client gives up
      method: 'post',
      path: '/hang/:id',
      handler: async (req) => {
        bus.publish('container', 'kill', String(req.params.id));
        answered.set(String(req.params.id), () => req.socket.destroyed);
        published.add(String(req.params.id));
        await new Promise(() => undefined);
      },
    },
  ];

  test('an event published while answering goes out after the answer; one outside waits behind it', async () => {
    const s = await serveRoutes(routes);
    try {
      seen.length = 0;
      const del = s.request('DELETE', '/things/d1');
      del.catch(() => undefined); // (a failed expectation below closes the server under it)
      while (!published.has('d1')) await new Promise((r) => setTimeout(r, 1));
      answered.set('outside', () => answered.get('d1')!());
      bus.publish('container', 'die', 'outside'); // published after the held destroy: delivered after it
      expect(seen).toEqual([]);
      expect((await del).status).toBe(204);
      expect(seen).toEqual([
        { id: 'd1', answered: true },
        { id: 'outside', answered: true },
      ]);

      // streamed: the event comes while the stream still runs
      seen.length = 0;
      const streamed = s.request('POST', '/stream/s1');
      streamed.catch(() => undefined);
      await until(() => seen.length > 0);
      expect(seen).toEqual([{ id: 's1', answered: true }]);
      ends.get('s1')!();
      await streamed;

      // hijacked: the same once the raw head is written
      seen.length = 0;
      const raw = net.connect(s.port, '127.0.0.1');
      raw.on('error', () => undefined);
      raw.resume();
      raw.write('POST /hijack/h1 HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n');
      await until(() => seen.length > 0);
      expect(seen).toEqual([{ id: 'h1', answered: true }]);
      const closed = new Promise((r) => raw.once('close', r));
      ends.get('h1')!();
      await closed;

      // a client that leaves before the answer releases what its request held
      seen.length = 0;
      const r = http.request({ host: '127.0.0.1', port: s.port, method: 'POST', path: '/hang/x1' });
      r.on('error', () => undefined);
      r.end();
      await until(() => published.has('x1'));
      expect(seen).toEqual([]);
      r.destroy();
      await until(() => seen.length > 0);
      expect(seen).toEqual([{ id: 'x1', answered: true }]);
    } finally {
      await s.close();
    }
  });

  test('one request answered while another is under way leaves the other its hold (the scope is off only with none)', async () => {
    const s = await serveRoutes(routes);
    try {
      // p1 is under way (its answer not out) while d2 is answered: p1's handling still finds its hold
      const p1 = s.request('POST', '/probe/p1');
      await until(() => ends.has('p1'));
      expect((await s.request('DELETE', '/things/d2')).status).toBe(204);
      ends.get('p1')!();
      expect((await p1).status).toBe(200);
      expect(probed.get('p1')).toBe(true);
      // with no request left (the scope off), the next one has its hold again
      const p2 = s.request('POST', '/probe/p2');
      await until(() => ends.has('p2'));
      ends.get('p2')!();
      expect((await p2).status).toBe(200);
      expect(probed.get('p2')).toBe(true);
      expect(currentAnswer()).toBeUndefined();
    } finally {
      await s.close();
    }
  });

  test('a route that publishes nothing takes no hold: open for long, it leaves the scope off; a request beside it has its hold', async () => {
    const s = await serveRoutes(routes);
    try {
      const w1 = s.request('POST', '/wait/w1');
      await until(() => ends.has('w1'));
      expect(unreleasedHolds()).toBe(0);
      // a request that publishes while w1 waits: held behind its own answer as usual
      seen.length = 0;
      expect((await s.request('DELETE', '/things/d3')).status).toBe(204);
      await until(() => seen.length > 0);
      expect(seen).toEqual([{ id: 'd3', answered: true }]);
      expect(unreleasedHolds()).toBe(0);
      ends.get('w1')!();
      expect((await w1).status).toBe(200);
      expect(probed.get('w1')).toBe(false);
    } finally {
      await s.close();
    }
  });

  test('POST /containers/{id}/wait is such a route', () => {
    const wait = containerRoutes(fake<ContainersBackend>({}), fake<ExecIdsBackend>({})).find((r) => r.method === 'post' && r.path === '/containers/:id/wait');
    expect(wait?.publishesNothing).toBe(true);
  });

  test('a stream left open holds nothing once its head is out: the scope goes off, and a request after it has its hold', async () => {
    const s = await serveRoutes(routes);
    try {
      seen.length = 0;
      const streamed = s.request('POST', '/stream/s2');
      streamed.catch(() => undefined);
      await until(() => seen.length > 0);
      expect(seen).toEqual([{ id: 's2', answered: true }]);
      // (as /events while docker stats asks for every container: open, its head out)
      await until(() => unreleasedHolds() === 0);
      expect(unreleasedHolds()).toBe(0);
      const p3 = s.request('POST', '/probe/p3');
      await until(() => ends.has('p3'));
      expect(unreleasedHolds()).toBe(1);
      ends.get('p3')!();
      expect((await p3).status).toBe(200);
      expect(probed.get('p3')).toBe(true);
      await until(() => unreleasedHolds() === 0);
      expect(unreleasedHolds()).toBe(0);
      ends.get('s2')!();
      await streamed;
      expect(unreleasedHolds()).toBe(0);
    } finally {
      await s.close();
    }
  });
});
