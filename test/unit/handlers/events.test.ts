// handlers/events over a real socket with a fake bus: since/until replay, filters per version.
import { eventRoutes, EventsBackend, EventSubscription } from '../../../src/handlers/events';
import type { EngineEvent } from '../../../src/types/event';
import { fake } from '../../helpers/fakes';
import { serveRoutes, Served } from '../../helpers/serve-routes';

const ev = (Action: string, ID: string, name: string, sec: number): EngineEvent => ({ Type: 'container', Action, Actor: { ID, Attributes: { image: 'busybox', name } }, time: sec, timeNano: sec * 1e9 });
const ring = [ev('create', 'a'.repeat(64), 'one', 100), ev('start', 'a'.repeat(64), 'one', 101), ev('create', 'b'.repeat(64), 'two', 102)];
const bus = fake<EventsBackend>({
  subscribe: (match): EventSubscription => ({ backlog: ring.filter(match), onEvent: () => undefined, onOverflow: () => undefined, close: () => undefined }),
});

let s: Served;
beforeAll(async () => (s = await serveRoutes(eventRoutes(bus))));
afterAll(() => s.close());
const lines = (text: string) => text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

test('since/until replay the ring in order, with the legacy fields', async () => {
  const r = await s.request('GET', '/events?since=100&until=101.5');
  expect([r.status, r.headers['content-type']]).toEqual([200, 'application/json']);
  expect(lines(r.text)).toEqual([
    { status: 'create', id: 'a'.repeat(64), from: 'busybox', Type: 'container', Action: 'create', Actor: { ID: 'a'.repeat(64), Attributes: { image: 'busybox', name: 'one' } }, scope: 'local', time: 100, timeNano: 100e9 },
    expect.objectContaining({ Action: 'start', time: 101 }),
  ]);
});

test('filters: container by name; an unknown filter is 400 from 1.24 and ignored before', async () => {
  const f = encodeURIComponent('{"container":["two"]}');
  expect(lines((await s.request('GET', `/events?since=0&until=200&filters=${f}`)).text).map((e) => e.Action)).toEqual(['create']);
  const bad = encodeURIComponent('{"colour":["red"]}');
  expect(await s.request('GET', `/events?since=0&until=200&filters=${bad}`)).toMatchObject({ status: 400, text: `{"message":"Invalid filter 'colour'"}\n` });
  expect(lines((await s.request('GET', `/v1.23/events?since=0&until=200&filters=${bad}`)).text)).toHaveLength(3);
});
