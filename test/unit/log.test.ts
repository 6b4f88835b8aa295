// berthd's log lines (src/log.ts): the lines winston's json and timestamp formats wrote before it was replaced (the
// expected strings are winston 3.19's output for the same calls), and the level filter.
import { createLogger, logLine, silentLogger } from '../../src/log';

const NOW = new Date('2026-11-26T11:59:39.145Z');

describe('log lines', () => {
  test('the keys sorted at every depth, undefined dropped, the time last in order', () => {
    expect(logLine('info', 'berth is ready', { version: '1.0' }, NOW)).toBe('{"level":"info","message":"berth is ready","timestamp":"2026-11-26T11:59:39.145Z","version":"1.0"}\n');
    expect(logLine('error', 'e', { err: 'x\ny', n: 1, nested: { z: 1, a: undefined, b: [1, { d: 2, c: 3 }] } }, NOW)).toBe(
      '{"err":"x\\ny","level":"error","message":"e","n":1,"nested":{"b":[1,{"c":3,"d":2}],"z":1},"timestamp":"2026-11-26T11:59:39.145Z"}\n',
    );
    expect(logLine('info', 'u', { d: new Date(0), e: new Error('boom'), nul: null, arr: [undefined] }, NOW)).toBe(
      '{"arr":[null],"d":"1970-01-01T00:00:00.000Z","e":{},"level":"info","message":"u","nul":null,"timestamp":"2026-11-26T11:59:39.145Z"}\n',
    );
  });

  test("a field's message is appended, its level ignored, its timestamp kept", () => {
    expect(logLine('debug', 'd', { message: 'more', level: 'zzz' }, NOW)).toBe('{"level":"debug","message":"d more","timestamp":"2026-11-26T11:59:39.145Z"}\n');
    expect(logLine('info', 'm', { timestamp: 'mine' }, NOW)).toBe('{"level":"info","message":"m","timestamp":"mine"}\n');
  });

  test('a field that does not serialize costs its fields, not the line', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    const line = JSON.parse(logLine('warn', 'w', { cycle, big: 1n }, NOW));
    expect(line).toMatchObject({ level: 'warn', message: 'w', timestamp: '2026-11-26T11:59:39.145Z' });
    expect(line.logError).toBeTruthy();
  });
});

describe('levels', () => {
  let written: string[];
  let spy: jest.SpyInstance;
  beforeEach(() => {
    written = [];
    spy = jest.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => (written.push(String(s)), true));
  });
  afterEach(() => spy.mockRestore());

  test('at or above the level set, on stderr; the level can change', () => {
    const log = createLogger('warn');
    log.debug('d');
    log.info('i');
    log.warn('w');
    log.error('e');
    expect(written.map((l) => JSON.parse(l).message)).toEqual(['w', 'e']);
    log.level = 'debug';
    log.debug('d2');
    expect(JSON.parse(written[2])).toMatchObject({ level: 'debug', message: 'd2' });
    expect(createLogger('fatal').level).toBe('error');
  });

  test('the silent logger writes nothing', () => {
    silentLogger().error('x');
    expect(written).toEqual([]);
  });
});
