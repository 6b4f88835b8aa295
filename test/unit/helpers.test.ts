import { resolveUser, layerDirs, readLayered } from '../../src/services/rootfs';
import { parseSignal } from '../../src/services/signals';
import { frame, FrameDecoder, parseDetachKeys, DetachWatcher } from '../../src/http/stream';
import { humanDuration, statusText } from '../../src/translate/response/containers';
import { compileEventFilter, parseEventTime } from '../../src/translate/filters';
import { toEventJSON } from '../../src/translate/response/events';
import { EventBus } from '../../src/events/bus';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const passwd = 'root:x:0:0:root:/root:/bin/sh\napp:x:1000:1000::/home/app:/bin/sh\n';
const group = 'root:x:0:\napp:x:1000:\nstaff:x:50:app\n';

// the reference's spec (20.10.24): process.user.additionalGids is [gid, groups listing the user (implicit form), GroupAdd]
test('users in all four forms, groups and GroupAdd', () => {
  expect(resolveUser('', passwd, group)).toEqual({ uid: 0, gid: 0, additionalGids: [0] });
  expect(resolveUser('app', passwd, group)).toEqual({ uid: 1000, gid: 1000, additionalGids: [1000, 50] });
  expect(resolveUser('app:staff', passwd, group)).toEqual({ uid: 1000, gid: 50, additionalGids: [50] });
  expect(resolveUser('4242', passwd, group)).toEqual({ uid: 4242, gid: 0, additionalGids: [0] });
  expect(resolveUser('4242:77', passwd, group)).toEqual({ uid: 4242, gid: 77, additionalGids: [77] });
  expect(resolveUser('4242:77', passwd, group, ['99']).additionalGids).toEqual([77, 99]);
  // repeats kept: -u bob --group-add 1000 --group-add staff gave [1000, 50, 10, 1000, 50]
  expect(resolveUser('app', passwd, group, ['1000', 'staff']).additionalGids).toEqual([1000, 50, 1000, 50]);
  expect(resolveUser('', passwd, group, ['staff', '99']).additionalGids).toEqual([0, 50, 99]);
  expect(() => resolveUser('nobody', passwd, group)).toThrow('unable to find user nobody: no matching entries in passwd file');
  expect(() => resolveUser('app:nogroup', passwd, group)).toThrow('unable to find group nogroup');
});

test('layered reads honour whiteouts and the top layer', () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'layers-'));
  for (const l of ['top', 'bottom']) fs.mkdirSync(path.join(d, l, 'etc'), { recursive: true });
  fs.writeFileSync(path.join(d, 'bottom/etc/a'), 'bottom');
  fs.writeFileSync(path.join(d, 'top/etc/a'), 'top');
  fs.writeFileSync(path.join(d, 'bottom/etc/b'), 'b');
  fs.writeFileSync(path.join(d, 'top/etc/.wh.b'), '');
  const dirs = [path.join(d, 'top'), path.join(d, 'bottom')];
  expect(readLayered(dirs, '/etc/a')).toBe('top');
  expect(readLayered(dirs, '/etc/b')).toBeUndefined();
  expect(layerDirs([{ type: 'overlay', source: 'overlay', options: ['index=off', `lowerdir=${dirs[0]}:${dirs[1]}`, 'upperdir=/u', 'workdir=/w'] }])).toEqual({ upper: '/u', lower: dirs });
  expect(layerDirs([{ type: 'bind', source: '/s', options: ['rw', 'rbind'] }])).toEqual({ upper: '/s', lower: [] });
  fs.rmSync(d, { recursive: true });
});

test('signals by name and number', () => {
  expect(parseSignal('SIGTERM')).toBe(15);
  expect(parseSignal('term')).toBe(15);
  expect(parseSignal('9')).toBe(9);
  expect(parseSignal(undefined)).toBe(9);
  expect(parseSignal('RTMIN+3')).toBe(37);
  expect(() => parseSignal('BOGUS')).toThrow('Invalid signal: BOGUS');
  expect(() => parseSignal('0')).toThrow('Invalid signal: 0');
});

test('8-byte framing round trip, split anywhere', () => {
  const wire = Buffer.concat([frame(1, Buffer.from('hello')), frame(2, Buffer.from('')), frame(2, Buffer.alloc(70000, 7))]);
  expect(wire.subarray(0, 8)).toEqual(Buffer.from([1, 0, 0, 0, 0, 0, 0, 5]));
  const dec = new FrameDecoder();
  const out = [...dec.push(wire.subarray(0, 3)), ...dec.push(wire.subarray(3, 20)), ...dec.push(wire.subarray(20))];
  expect(out.map((f) => [f.stream, f.payload.length])).toEqual([[1, 5], [2, 0], [2, 70000]]);
});

test('detach keys', () => {
  expect(parseDetachKeys(undefined)).toEqual([16, 17]);
  expect(parseDetachKeys('ctrl-a,x')).toEqual([1, 120]);
  expect(() => parseDetachKeys('ctrl-1')).toThrow('Invalid detach keys (ctrl-1) provided');
  const w = new DetachWatcher([16, 17]);
  expect(w.feed(Buffer.from([65, 16]))).toEqual({ forward: Buffer.from([65]), detach: false });
  expect(w.feed(Buffer.from([66]))).toEqual({ forward: Buffer.from([16, 66]), detach: false });
  expect(w.feed(Buffer.from([16, 17, 67])).detach).toBe(true);
});

test('status text like the engine', () => {
  expect(humanDuration(500)).toBe('Less than a second');
  expect(humanDuration(1000)).toBe('1 second');
  expect(humanDuration(59_000)).toBe('59 seconds');
  expect(humanDuration(60_000)).toBe('About a minute');
  expect(humanDuration(45 * 60_000)).toBe('45 minutes');
  expect(humanDuration(3_600_000)).toBe('About an hour');
  expect(humanDuration(5 * 3_600_000)).toBe('5 hours');
  expect(humanDuration(3 * 86_400_000)).toBe('3 days');
  const now = Date.parse('2024-01-01T00:01:00Z');
  const base = { Status: 'exited', Running: false, Paused: false, Restarting: false, OOMKilled: false, Dead: false, Pid: 0, ExitCode: 2, Error: '', StartedAt: '2024-01-01T00:00:00Z', FinishedAt: '2024-01-01T00:00:55Z' };
  expect(statusText({ State: base } as never, now)).toBe('Exited (2) 5 seconds ago');
  expect(statusText({ State: { ...base, Running: true, Status: 'running' } } as never, now)).toBe('Up About a minute');
  expect(statusText({ State: { ...base, Running: true, Paused: true } } as never, now)).toBe('Up About a minute (Paused)');
  expect(statusText({ State: { ...base, StartedAt: '0001-01-01T00:00:00Z', Status: 'created' } } as never, now)).toBe('Created');
});

test('event filters, times and shapes', () => {
  const e = { Type: 'container' as const, Action: 'die', Actor: { ID: 'abc123', Attributes: { name: 'web', image: 'busybox', exitCode: '0', role: 'x' } }, time: 1, timeNano: 1e9 };
  const f = (o: Record<string, string[]>) => compileEventFilter(new Map(Object.entries(o)), true, true)(e);
  expect(f({ container: ['web'] })).toBe(true);
  expect(f({ container: ['abc'] })).toBe(true);
  expect(f({ container: ['other'] })).toBe(false);
  expect(f({ event: ['die', 'start'], type: ['container'] })).toBe(true);
  expect(f({ image: ['busybox:latest'] })).toBe(true);
  expect(f({ label: ['role=x'] })).toBe(true);
  expect(f({ label: ['role=y'] })).toBe(false);
  expect(() => f({ bogus: ['x'] })).toThrow("Invalid filter 'bogus'");
  expect(compileEventFilter(new Map([['bogus', ['x']]]), false, false)(e)).toBe(true);
  expect(parseEventTime('1700000000.5')).toBe(1700000000.5e9);
  expect(parseEventTime('2023-11-14T22:13:20Z')).toBe(1700000000e9);
  expect(toEventJSON(e)).toEqual({ status: 'die', id: 'abc123', from: 'busybox', Type: 'container', Action: 'die', Actor: e.Actor, scope: 'local', time: 1, timeNano: 1e9 });
  expect(toEventJSON({ ...e, Type: 'network' }).status).toBeUndefined();
});

test('the bus keeps a ring and replays it', () => {
  const bus = new EventBus({ ringSize: 3 });
  for (let i = 0; i < 5; i++) bus.publish('image', 'tag', `i${i}`);
  expect(bus.history().map((e) => e.Actor.ID)).toEqual(['i2', 'i3', 'i4']);
  const sub = bus.subscribe((e) => e.Actor.ID !== 'i3');
  expect(sub.backlog.map((e) => e.Actor.ID)).toEqual(['i2', 'i4']);
  const live = bus.subscribe((e) => e.Actor.ID !== 'i3', false);
  expect(live.backlog).toEqual([]); // (no replay asked: the ring is not walked)
  live.close();
  const got: string[] = [];
  sub.onEvent((e) => got.push(e.Actor.ID));
  bus.publish('image', 'tag', 'i5');
  sub.close();
  bus.publish('image', 'tag', 'i6');
  expect(got).toEqual(['i5']);
  expect(bus.listeners).toBe(0);
});
