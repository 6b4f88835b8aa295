// json-file rotation (max-size, max-file, compress) as the engine does it, reading across the rotated files (tail,
// since, logical from/until ranges of a follow), attributes, and the log options' messages.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { streamLogs } from '../../src/services/logs';
import { readLogs } from '../../src/runtime/logread';
import { LogSource, openLogFiles } from '../../src/runtime/logfiles';
import { goJsonAttrs, logAttributes, parseJsonFileOptions, parseSize, renderTag, validateLogOptions } from '../../src/translate/request/log-options';
import type { LogEntry, LogReadOptions } from '../../src/types/logs';
import { JsonFileLog } from '../../src/runtime/jsonfile';

let dir: string;
let file: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-rotation-'));
  file = path.join(dir, 'c-json.log');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const ALL = { stdout: true, stderr: true };
const lineNumbers = (text: string) => [...text.matchAll(/line (\d+)/g)].map((m) => Number(m[1]));
const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);

async function read(src: LogSource | string, o: LogReadOptions = ALL): Promise<LogEntry[]> {
  const out: LogEntry[] = [];
  await readLogs(src, o, (e) => void out.push(e));
  return out;
}

function writeLines(log: JsonFileLog, from: number, to: number): void {
  for (let i = from; i <= to; i++) log.write('stdout', Buffer.from(`line ${i}\n`));
}

describe('rotation', () => {
  test('max-size 1k, max-file 3: the engine files (.1 newest, .2), each rotated once it reached max-size; reads give the kept lines in order', async () => {
    const log = new JsonFileLog(file, { maxSize: 1000, maxFiles: 3, compress: false });
    writeLines(log, 1, 100);
    log.close();
    expect(fs.readdirSync(dir).sort()).toEqual(['c-json.log', 'c-json.log.1', 'c-json.log.2']);
    const [cur, r1, r2] = ['', '.1', '.2'].map((s) => fs.readFileSync(file + s, 'latin1'));
    for (const r of [r1, r2]) {
      // rotated before the entry that would have gone after the one reaching 1000 bytes
      expect(r.length).toBeGreaterThanOrEqual(1000);
      expect(r.length - r.slice(0, -1).slice(r.slice(0, -1).lastIndexOf('\n') + 1).length - 1).toBeLessThan(1000);
    }
    const kept = [...lineNumbers(r2), ...lineNumbers(r1), ...lineNumbers(cur)];
    expect(kept).toEqual(range(kept[0], 100));
    expect(kept.length).toBeGreaterThan(30);
    const src = openLogFiles(file, 2);
    expect((await read(src)).map((e) => Number(e.log.slice(5)))).toEqual(kept);
    expect((await read(openLogFiles(file, 2), { ...ALL, tail: 15 })).map((e) => e.log)).toEqual(range(86, 100).map((i) => `line ${i}\n`));
    expect((await read(openLogFiles(file, 2), { ...ALL, tail: 1000 })).length).toBe(kept.length);
    expect(await read(openLogFiles(file, 2), { ...ALL, tail: 0 })).toEqual([]);
  });

  test('the cuts do not depend on how the output was read: one read of 100 lines at a time with trailing zeros is cut as the engine cuts 100 lines (kept 66-100)', () => {
    // The entries of one read share a time. The engine takes a time per line (Go trims its trailing zeros: one line in
    // ten is a byte shorter, independently); a shared time ending in 00 shortened every entry of the read by two
    // bytes, each file took a line more and the files kept 71-100 (the integration test's flake). The time is written
    // with nine digits.
    for (const [nanos, chunks] of [[123456700, [range(1, 100)]], [500000000, [range(1, 40), range(41, 100)]], [0, [range(1, 100)]], [987654321, range(1, 100).map((i) => [i])]] as [number, number[][]][]) {
      fs.rmSync(dir, { recursive: true, force: true });
      const log = new JsonFileLog(file, { maxSize: 1000, maxFiles: 3, compress: false });
      log.clock = () => ({ seconds: 1795692333, nanos });
      for (const c of chunks) log.write('stdout', Buffer.from(c.map((i) => `line ${i}\n`).join('')));
      log.close();
      const files = ['.2', '.1', ''].map((s) => lineNumbers(fs.readFileSync(file + s, 'latin1')));
      expect([nanos, files]).toEqual([nanos, [range(66, 78), range(79, 91), range(92, 100)]]);
    }
  });

  test('max-file 1: the previous file is kept as .1 (as the engine does) but not read', async () => {
    const log = new JsonFileLog(file, { maxSize: 500, maxFiles: 1, compress: false });
    writeLines(log, 1, 30);
    log.close();
    expect(fs.readdirSync(dir).sort()).toEqual(['c-json.log', 'c-json.log.1']);
    const cur = lineNumbers(fs.readFileSync(file, 'latin1'));
    expect(cur[cur.length - 1]).toBe(30);
    expect((await read(log.open())).map((e) => Number(e.log.slice(5)))).toEqual(cur);
  });

  test('compress: rotated files become .N.gz with the engine header (Extra {"lastTime"}), read decompressed', async () => {
    const log = new JsonFileLog(file, { maxSize: 1000, maxFiles: 3, compress: true });
    for (let i = 1; i <= 100; i++) {
      writeLines(log, i, i);
      await log.settled(); // a rotation due while the previous file is compressed waits for it
    }
    log.close();
    await log.settled();
    expect(fs.readdirSync(dir).sort()).toEqual(['c-json.log', 'c-json.log.1.gz', 'c-json.log.2.gz']);
    const gz = fs.readFileSync(file + '.1.gz');
    expect([...gz.subarray(0, 4)]).toEqual([0x1f, 0x8b, 8, 4]);
    const xlen = gz.readUInt16LE(10);
    const extra = JSON.parse(gz.subarray(12, 12 + xlen).toString()) as { lastTime: string };
    const plain = zlib.gunzipSync(gz).toString('latin1');
    expect(plain.endsWith(`"time":"${extra.lastTime}"}\n`)).toBe(true);
    const kept = [...lineNumbers(zlib.gunzipSync(fs.readFileSync(file + '.2.gz')).toString()), ...lineNumbers(plain), ...lineNumbers(fs.readFileSync(file, 'latin1'))];
    expect(kept).toEqual(range(kept[0], 100));
    expect((await read(log.open())).map((e) => Number(e.log.slice(5)))).toEqual(kept);
    expect((await read(log.open(), { ...ALL, tail: 20 })).map((e) => Number(e.log.slice(5)))).toEqual(range(81, 100));
  });

  test('rotations do not wait for compressions: a burst is cut where the engine cuts it, each file gzipped under the index it has when done', async () => {
    const log = new JsonFileLog(file, { maxSize: 300, maxFiles: 4, compress: true });
    writeLines(log, 1, 60); // one synchronous burst: many rotations while the compressions run
    const during = log.open(); // plain or gzipped, whatever each is at this instant
    await log.settled();
    log.close();
    expect(fs.readdirSync(dir).sort()).toEqual(['c-json.log', 'c-json.log.1.gz', 'c-json.log.2.gz', 'c-json.log.3.gz']); // no temporary files left
    const sizes = ['.3.gz', '.2.gz', '.1.gz'].map((x) => zlib.gunzipSync(fs.readFileSync(file + x)).length);
    for (const n of sizes) expect(n).toBeLessThan(300 + 80);
    const kept = (await read(openLogFiles(file, 3))).map((e) => Number(e.log.slice(5)));
    expect(kept).toEqual(range(kept[0], 60));
    expect((await read(during)).map((e) => Number(e.log.slice(5)))).toEqual(kept);
    // the same burst without compress: the same cut
    fs.rmSync(dir, { recursive: true });
    const plain = new JsonFileLog(file, { maxSize: 300, maxFiles: 4, compress: false });
    writeLines(plain, 1, 60);
    plain.close();
    expect((await read(openLogFiles(file, 3))).map((e) => Number(e.log.slice(5)))).toEqual(kept);
  });

  test('a capture restarted with plain rotated files and a temporary file left by a stopped berth compresses them again', async () => {
    let log = new JsonFileLog(file, { maxSize: 300, maxFiles: 3, compress: false });
    writeLines(log, 1, 12);
    log.close();
    fs.writeFileSync(path.join(dir, '.c-json.log.gz-7.tmp'), 'partial');
    log = new JsonFileLog(file, { maxSize: 300, maxFiles: 3, compress: true });
    await log.settled();
    log.close();
    expect(fs.readdirSync(dir).sort()).toEqual(['c-json.log', 'c-json.log.1.gz', 'c-json.log.2.gz']);
    const kept = (await read(openLogFiles(file, 2))).map((e) => Number(e.log.slice(5)));
    expect(kept).toEqual(range(kept[0], 12));
  });

  test('a restarted capture continues the files: the current size counts, older rotated files are shifted', async () => {
    let log = new JsonFileLog(file, { maxSize: 1000, maxFiles: 3, compress: false });
    writeLines(log, 1, 20);
    log.close();
    log = new JsonFileLog(file, { maxSize: 1000, maxFiles: 3, compress: false });
    writeLines(log, 21, 60);
    log.close();
    const all = (await read(log.open())).map((e) => Number(e.log.slice(5)));
    expect(all).toEqual(range(all[0], 60));
    expect(fs.statSync(file + '.1').size).toBeLessThan(1100);
  });

  test('logical ranges (a follow): nothing lost or twice while the files rotate between and under reads', async () => {
    const log = new JsonFileLog(file, { maxSize: 400, maxFiles: 10, compress: false });
    const got: number[] = [];
    let pos: number | undefined;
    for (let round = 0; round < 8; round++) {
      writeLines(log, round * 10 + 1, round * 10 + 10);
      const until = log.end;
      const src = log.open();
      writeLines(log, 1000 + round, 1000 + round); // rotations after the files were opened change nothing
      writeLines(log, 2000, 2010);
      // the lines written after `until` are not wanted in this read: "1000+"/"2000+" are read in the next round
      const e = await read(src, { ...ALL, from: pos, until });
      got.push(...e.map((x) => Number(x.log.slice(5))));
      pos = until;
    }
    const expected: number[] = [];
    for (let round = 0; round < 8; round++) {
      if (round > 0) expected.push(1000 + round - 1, ...range(2000, 2010));
      expected.push(...range(round * 10 + 1, round * 10 + 10));
    }
    expect(got).toEqual(expected);
    log.close();
  });

  test('a logical offset in a file deleted since (beyond max-file) starts at the oldest file kept', async () => {
    const log = new JsonFileLog(file, { maxSize: 200, maxFiles: 2, compress: false });
    writeLines(log, 1, 3);
    const pos = log.end;
    writeLines(log, 4, 40);
    const got = (await read(log.open(), { ...ALL, from: pos, until: log.end })).map((e) => Number(e.log.slice(5)));
    expect(got[got.length - 1]).toBe(40);
    expect(got).toEqual(range(got[0], 40));
    log.close();
  });

  test('a follow of the current file reads what is appended until stopped', async () => {
    const log = new JsonFileLog(file, { maxSize: -1, maxFiles: 1, compress: false });
    writeLines(log, 1, 2);
    let stop!: () => void;
    const stopped = new Promise<void>((r) => (stop = r));
    const got: string[] = [];
    const p = readLogs(log.open(), { ...ALL, tail: 1 }, (e) => void got.push(e.log), { stopped, signal: new AbortController().signal });
    await new Promise((r) => setTimeout(r, 20));
    writeLines(log, 3, 3);
    stop();
    await p;
    expect(got).toEqual(['line 2\n', 'line 3\n']);
    log.close();
  });
});

describe('attributes', () => {
  test('entries carry attrs in the engine key order; reads return them, details prefixes them', async () => {
    const attrs = goJsonAttrs({ 'com.b': 'x y', FOO: 'b<a>r"', tag: 'web/1234' });
    expect(attrs).toBe('{"FOO":"b\\u003ca\\u003er\\"","com.b":"x y","tag":"web/1234"}');
    const log = new JsonFileLog(file, { maxSize: -1, maxFiles: 1, compress: false, attrs });
    log.write('stdout', Buffer.from('he said "hi",\n"time":"x"\n'));
    log.write('stderr', Buffer.from('partial'));
    log.close();
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    expect(lines[0]).toMatch(/^\{"log":"he said \\"hi\\",\\n","stream":"stdout","attrs":\{"FOO":"b\\u003ca\\u003er\\"","com.b":"x y","tag":"web\/1234"\},"time":"[^"]+"\}$/);
    expect(lines[2]).toMatch(/^\{"log":"partial","stream":"stderr","attrs":\{.*\},"time":"[^"]+"\}$/);
    const e = await read(file);
    expect(e.map((x) => x.log)).toEqual(['he said "hi",\n', '"time":"x"\n', 'partial']);
    expect(e[0].attrs).toEqual({ 'com.b': 'x y', FOO: 'b<a>r"', tag: 'web/1234' });
    const chunks: Buffer[] = [];
    await streamLogs(file, ALL, { framed: false, timestamps: false, details: true }, (b) => void chunks.push(b));
    expect(Buffer.concat(chunks).toString()).toBe('FOO=b%3Ca%3Er%22,com.b=x+y,tag=web%2F1234 he said "hi",\nFOO=b%3Ca%3Er%22,com.b=x+y,tag=web%2F1234 "time":"x"\nFOO=b%3Ca%3Er%22,com.b=x+y,tag=web%2F1234 partial');
  });

  const info = {
    id: 'ad5ea77a5480' + 'f'.repeat(52),
    name: '/attrs1',
    imageId: 'sha256:f0c4c8f0ab699a6aff8da598dce997a45b928f30b15419fff94b70d1a2bdbb79',
    imageName: 'busybox',
    path: 'echo',
    args: ['x'],
    env: ['FOO=bar', 'FOOD=pizza', 'XX=1', 'PATH=/bin'],
    labels: { 'com.a': '1', 'com.b': 'x y', other: 'z' },
    logPath: '/l',
    hostname: 'h',
  };

  test('labels, labels-regex, env, env-regex and tag pick what the reference picked', () => {
    expect(logAttributes({ labels: 'com.b,com.a,missing', env: 'FOO,NOPE', 'env-regex': '^FOOD$', tag: '{{.Name}}/{{.ID}}' }, info)).toEqual({
      FOO: 'bar',
      FOOD: 'pizza',
      'com.a': '1',
      'com.b': 'x y',
      tag: 'attrs1/ad5ea77a5480',
    });
    expect(logAttributes({ 'labels-regex': '^com\\.' }, info)).toEqual({ 'com.a': '1', 'com.b': 'x y' });
    expect(logAttributes({ tag: '' }, info)).toBeUndefined();
    expect(logAttributes({ 'max-size': '1m' }, info)).toBeUndefined();
    expect(renderTag('{{.ImageName}}|{{.FullID}}|{{.ImageID}}|{{.DaemonName}}|{{.Command}}', info)).toBe(`busybox|${info.id}|sha256:f0c4c|docker|echo x`);
    expect(() => renderTag('{{.Nope}}', info)).toThrow(`template: log-tag:1:2: executing "log-tag" at <.Nope>: can't evaluate field Nope in type *logger.Info`);
  });
});

describe('log options', () => {
  const start = (cfg: Record<string, string>) => () => parseJsonFileOptions(cfg);
  test('values, checked when the log starts, with the reference messages', () => {
    expect(parseJsonFileOptions({})).toEqual({ maxSize: -1, maxFiles: 1, compress: false });
    expect(parseJsonFileOptions({ 'max-size': '10m', 'max-file': '3', compress: 'true' })).toEqual({ maxSize: 10_000_000, maxFiles: 3, compress: true });
    expect(start({ 'max-size': 'abc' })).toThrow("invalid size: 'abc'");
    expect(start({ 'max-size': '-1' })).toThrow("invalid size: '-1'");
    expect(start({ 'max-size': '' })).toThrow("invalid size: ''");
    expect(start({ 'max-size': '0' })).toThrow('max-size must be a positive number');
    expect(start({ 'max-file': 'x' })).toThrow('strconv.Atoi: parsing "x": invalid syntax');
    expect(start({ 'max-file': ' 2' })).toThrow('strconv.Atoi: parsing " 2": invalid syntax');
    expect(start({ 'max-file': '0' })).toThrow('max-file cannot be less than 1');
    expect(start({ compress: 'yes' })).toThrow('strconv.ParseBool: parsing "yes": invalid syntax');
    expect(start({ compress: 'true' })).toThrow('compress cannot be true when max-file is less than 2 or max-size is not set');
    expect(start({ compress: 'true', 'max-size': '1k' })).toThrow('compress cannot be true when max-file is less than 2 or max-size is not set');
    expect(start({ compress: 'true', 'max-file': '2' })).toThrow('compress cannot be true when max-file is less than 2 or max-size is not set');
    expect(parseJsonFileOptions({ 'max-file': '3' })).toEqual({ maxSize: -1, maxFiles: 3, compress: false }); // accepted, no effect
    expect(parseSize('1.5k')).toBe(1500);
    expect(parseSize('10 m')).toBe(10_000_000);
    expect(parseSize('10MiB')).toBe(10_000_000);
    expect(parseSize('1.5')).toBe(1);
    expect(parseSize('4m', true)).toBe(4 << 20);
  });

  test('names, checked at create (400), with the reference messages', () => {
    const create = (type: string, cfg: Record<string, string>) => () => validateLogOptions(type, cfg);
    expect(create('json-file', { foo: 'bar' })).toThrow("unknown log opt 'foo' for json-file log driver");
    expect(create('', { foo: 'bar' })).toThrow("unknown log opt 'foo' for json-file log driver");
    expect(create('none', { foo: 'bar' })).not.toThrow();
    expect(create('json-file', { mode: 'x' })).toThrow('logger: logging mode not supported: x');
    expect(create('json-file', { 'max-buffer-size': '4m' })).toThrow("logger: max-buffer-size option is only supported with 'mode=non-blocking'");
    expect(create('json-file', { mode: 'non-blocking', 'max-buffer-size': '4x' })).toThrow("error parsing option max-buffer-size: invalid size: '4x'");
    expect(create('json-file', { 'cache-disabled': 'x' })).toThrow('invalid value for option cache-disabled: x');
    for (const ok of <Record<string, string>[]>[{ 'max-size': 'abc' }, { 'max-file': 'x' }, { compress: 'true' }, { labels: 'a', env: 'b', 'env-regex': 'c', 'labels-regex': 'd', tag: 't' }, { mode: 'non-blocking', 'max-buffer-size': '1.5m' }, { 'cache-max-size': 'x' }])
      expect(create('json-file', ok)).not.toThrow();
  });
});
