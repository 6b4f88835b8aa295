import { parseArgs, DEFAULT_HOST } from '../../src/config';
import { parseHost } from '../../src/http/server';
import { rfc3339Nano, parseRfc3339, fromProtoTime, ZERO_TIME } from '../../src/translate/time';

describe('berthd flags', () => {
  test('defaults', () => {
    const c = parseArgs([]);
    if (typeof c === 'string') throw new Error('unexpected');
    expect(c.hosts).toEqual([DEFAULT_HOST]);
    expect(c.namespace).toBe('berth');
    expect(c.containerd).toBeUndefined();
  });
  test('repeatable -H, = forms, and the rest', () => {
    const c = parseArgs(['-H', 'unix:///tmp/a.sock', '--host=tcp://127.0.0.1:2375', '--data-root', '/d', '--exec-root=/e', '--containerd', '/c.sock', '--namespace', 'ns', '-l', 'debug', '--api-cors-header', '*']);
    if (typeof c === 'string') throw new Error('unexpected');
    expect(c.hosts).toEqual(['unix:///tmp/a.sock', 'tcp://127.0.0.1:2375']);
    expect([c.dataRoot, c.execRoot, c.containerd, c.namespace, c.logLevel, c.corsHeader]).toEqual(['/d', '/e', '/c.sock', 'ns', 'debug', '*']);
  });
  test("plugin directories: the engine's by default, repeatable spec dirs", () => {
    const d = parseArgs([]);
    if (typeof d === 'string') throw new Error('unexpected');
    expect([d.pluginSocketDir, d.pluginSpecDirs]).toEqual(['/run/docker/plugins', ['/etc/docker/plugins', '/usr/lib/docker/plugins']]);
    const c = parseArgs(['--plugin-socket-dir', '/s', '--plugin-spec-dir', '/a', '--plugin-spec-dir=/b']);
    if (typeof c === 'string') throw new Error('unexpected');
    expect([c.pluginSocketDir, c.pluginSpecDirs]).toEqual(['/s', ['/a', '/b']]);
  });
  test('help, version and bad flags', () => {
    expect(parseArgs(['--help'])).toBe('help');
    expect(parseArgs(['-v'])).toBe('version');
    expect(() => parseArgs(['--nope'])).toThrow('unknown flag: --nope');
    expect(() => parseArgs(['-H'])).toThrow('flag needs an argument');
  });
  test('host addresses', () => {
    expect(parseHost('unix:///var/run/berth.sock')).toEqual({ kind: 'unix', path: '/var/run/berth.sock' });
    expect(parseHost('tcp://0.0.0.0:2375')).toEqual({ kind: 'tcp', host: '0.0.0.0', port: 2375 });
    expect(parseHost(':2375')).toEqual({ kind: 'tcp', host: '127.0.0.1', port: 2375 });
    expect(() => parseHost('bogus')).toThrow();
  });
});

describe('Go time formats', () => {
  test('RFC3339Nano trims trailing zeros like Go', () => {
    expect(rfc3339Nano({ seconds: 1700000000, nanos: 120000000 })).toBe('2023-11-14T22:13:20.12Z');
    expect(rfc3339Nano({ seconds: 1700000000, nanos: 0 })).toBe('2023-11-14T22:13:20Z');
    expect(rfc3339Nano({ seconds: 1700000000, nanos: 5 })).toBe('2023-11-14T22:13:20.000000005Z');
  });
  test('zero time and protobuf timestamps', () => {
    expect(rfc3339Nano(fromProtoTime({ seconds: '-62135596800', nanos: 0 }))).toBe(ZERO_TIME);
    expect(rfc3339Nano(fromProtoTime(null))).toBe(ZERO_TIME);
    expect(parseRfc3339('2023-11-14T22:13:20.123456789Z')).toEqual({ seconds: 1700000000, nanos: 123456789 });
    expect(parseRfc3339(ZERO_TIME).seconds).toBe(-62135596800);
  });
});
