// The json-file log reader: tail from the end, since, stream filters, follow until the container stops.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readLogs } from '../../src/runtime/logread';
import type { LogEntry } from '../../src/types/logs';

function line(i: number, stream: 'stdout' | 'stderr'): string {
  return JSON.stringify({ log: `line ${i}\n`, stream, time: `2026-01-01T00:00:${String(i).padStart(2, '0')}.000000001Z` }) + '\n';
}

describe('readLogs', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-logs-'));
    file = path.join(dir, 'x-json.log');
    fs.writeFileSync(file, Array.from({ length: 20 }, (_, i) => line(i, i % 2 ? 'stderr' : 'stdout')).join(''));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function read(o: Parameters<typeof readLogs>[1]): Promise<string[]> {
    const out: LogEntry[] = [];
    await readLogs(file, o, (e) => void out.push(e));
    return out.map((e) => e.log.trim());
  }

  test('all, tail N counts lines from the end, tail 0 is nothing', async () => {
    expect(await read({ stdout: true, stderr: true })).toHaveLength(20);
    expect(await read({ stdout: true, stderr: true, tail: 3 })).toEqual(['line 17', 'line 18', 'line 19']);
    expect(await read({ stdout: true, stderr: true, tail: 0 })).toEqual([]);
    expect(await read({ stdout: true, stderr: true, tail: 100 })).toHaveLength(20);
  });

  test('stream filter and since (nanosecond precision)', async () => {
    expect(await read({ stdout: true, stderr: false, tail: 4 })).toEqual(['line 16', 'line 18']);
    const since = BigInt(Date.parse('2026-01-01T00:00:18Z')) * 1_000_000n + 1n;
    expect(await read({ stdout: true, stderr: true, sinceNs: since })).toEqual(['line 18', 'line 19']);
  });

  test('a missing file reads as empty', async () => {
    const out: LogEntry[] = [];
    await readLogs(path.join(dir, 'nope'), { stdout: true, stderr: true }, (e) => void out.push(e));
    expect(out).toEqual([]);
  });

  test('follow returns what is appended until stopped', async () => {
    let stop!: () => void;
    const stopped = new Promise<void>((r) => (stop = r));
    const out: string[] = [];
    const done = readLogs(file, { stdout: true, stderr: true, tail: 1 }, (e) => void out.push(e.log.trim()), { stopped, signal: new AbortController().signal });
    await new Promise((r) => setTimeout(r, 100));
    fs.appendFileSync(file, line(20, 'stdout') + line(21, 'stderr'));
    await new Promise((r) => setTimeout(r, 150));
    stop();
    await done;
    expect(out).toEqual(['line 19', 'line 20', 'line 21']);
  });
});

describe('streamLogs', () => {
  const { LogEncoder } = jest.requireActual('../../src/runtime/jsonlog') as typeof import('../../src/runtime/jsonlog');
  const { streamLogs } = jest.requireActual('../../src/services/logs') as typeof import('../../src/services/logs');
  const { FrameDecoder } = jest.requireActual('../../src/http/stream') as typeof import('../../src/http/stream');
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-slogs-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** Writes chunks as the capture does; returns what each stream received. */
  function write(file: string, chunks: ['stdout' | 'stderr', string | Buffer][]): Record<string, Buffer> {
    const e = new LogEncoder();
    const fd = fs.openSync(file, 'w');
    const want: Record<string, Buffer[]> = { stdout: [], stderr: [] };
    chunks.forEach(([s, c], i) => {
      const b = Buffer.from(c as string);
      fs.writeSync(fd, e.encode(b, s, `2026-01-01T00:00:00.${String(i + 1).padStart(9, '0')}Z`));
      want[s].push(b);
    });
    fs.closeSync(fd);
    return { stdout: Buffer.concat(want.stdout), stderr: Buffer.concat(want.stderr) };
  }

  async function read(file: string, framed: boolean, o = { stdout: true, stderr: true }): Promise<Record<string, Buffer>> {
    const parts: Buffer[] = [];
    await streamLogs(file, o, { framed, timestamps: false, details: false }, (b) => void parts.push(Buffer.from(b)));
    const all = Buffer.concat(parts);
    if (!framed) return { stdout: all, stderr: Buffer.alloc(0) };
    const frames = new FrameDecoder().push(all);
    return { stdout: Buffer.concat(frames.filter((f) => f.stream === 1).map((f) => f.payload)), stderr: Buffer.concat(frames.filter((f) => f.stream === 2).map((f) => f.payload)) };
  }

  test('plain one-stream text (the bulk path), partial lines, literal backslash-n, escapes, both streams: byte-exact', async () => {
    const cases: ['stdout' | 'stderr', string | Buffer][][] = [
      [['stdout', 'a\nbb\n\nccc\n']],
      [['stdout', 'no newline'], ['stdout', ' then more\nand\n']],
      [['stdout', 'ends with a literal \\n'], ['stdout', 'x\n']],
      [['stdout', 'back\\slash\n'], ['stdout', 'tab\there "q"\n']],
      [['stderr', 'only err\n'], ['stderr', 'again\n']],
      [['stdout', 'o1\n'], ['stderr', 'e1\n'], ['stdout', 'o2\n']],
      [['stdout', Buffer.from([0xff, 0x0a, 0xe2, 0x82, 0xac, 0x0a])]],
    ];
    for (const chunks of cases) {
      const file = path.join(dir, 'l.log');
      const want = write(file, chunks);
      const viaJson = (s: string) =>
        fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((e) => e.stream === s).map((e) => e.log).join('');
      const got = await read(file, true);
      expect(got.stdout.toString('utf8')).toBe(viaJson('stdout'));
      expect(got.stderr.toString('utf8')).toBe(viaJson('stderr'));
      if (!chunks.some(([, c]) => Buffer.isBuffer(c))) expect(got).toEqual(want);
      const onlyErr = await read(file, true, { stdout: false, stderr: true });
      expect(onlyErr.stdout.length).toBe(0);
      expect(onlyErr.stderr.toString()).toBe(viaJson('stderr'));
    }
  });

  test('the SIMD decoder gives what JSON.parse gives, a frame per entry: random text, escapes, attrs, foreign and broken lines', async () => {
    const file = path.join(dir, 'mixed.log');
    const e = new LogEncoder();
    const bytewise = new LogEncoder(true);
    let seed = 7;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const pieces = ['a', 'bc', '\n', '"', '\\', '\\n', '<', '>', '&', '\t', '\r', '\x01', '\x7f', 'é', '€', '\u2028', '😀', '/'];
    const lines: string[] = [];
    for (let i = 0; i < 3000; i++) {
      const stream = rnd(3) ? 'stdout' : 'stderr';
      const t = `2026-01-01T00:00:00.${String(i).padStart(9, '0')}Z`;
      const kind = rnd(20);
      if (kind === 0) lines.push(JSON.stringify({ stream, log: `foreign ${i}\n`, time: t }) + '\n');
      else if (kind === 1) lines.push(`{"log":"pair \\ud83d\\ude00 lone \\udc00 ${i}\\n","stream":"${stream}","time":"${t}"}\n`);
      else if (kind === 2) lines.push(`{"log":"attrs ${i}\\n","stream":"${stream}","attrs":{"a":"b\\"c"},"time":"${t}"}\n`);
      else if (kind === 3) lines.push(['not json\n', '\n', '{"log":"cut","stream":"stdout"\n', `{"log":"x","stream":"stdin","time":"${t}"}\n`][rnd(4)]);
      else {
        let text = '';
        for (let k = rnd(12); k >= 0; k--) text += pieces[rnd(pieces.length)];
        const b = rnd(10) ? Buffer.from(text) : Buffer.concat([Buffer.from(text), Buffer.from([0xff, 0xc3])]);
        lines.push((rnd(2) ? e : bytewise).encode(b, stream, t).toString('latin1'));
      }
    }
    fs.writeFileSync(file, Buffer.from(lines.join(''), 'latin1'));
    const want = (o: { stdout: boolean; stderr: boolean }) =>
      fs
        .readFileSync(file, 'latin1')
        .split('\n')
        .flatMap((l) => {
          try {
            const j = JSON.parse(Buffer.from(l, 'latin1').toString('utf8'));
            return typeof j.log === 'string' && (j.stream === 'stdout' ? o.stdout : j.stream === 'stderr' ? o.stderr : false) && typeof j.time === 'string' ? [`${j.stream === 'stdout' ? 1 : 2}:${Buffer.from(j.log).toString('hex')}`] : [];
          } catch {
            return [];
          }
        });
    for (const o of [{ stdout: true, stderr: true }, { stdout: true, stderr: false }, { stdout: false, stderr: true }]) {
      const parts: Buffer[] = [];
      await streamLogs(file, o, { framed: true, timestamps: false, details: false }, (b) => void parts.push(Buffer.from(b)));
      const got = new FrameDecoder().push(Buffer.concat(parts)).map((f) => `${f.stream}:${f.payload.toString('hex')}`);
      expect(got).toEqual(want(o));
    }
  });

  test('lines across the 1 MiB reads (an escape, a UTF-8 character, the keys split by a read; lines longer than the head room and than a read; a foreign line) come back as JSON.parse reads them, here and on the log reader thread', async () => {
    const { LogReaderThread } = jest.requireActual('../../src/services/logs') as typeof import('../../src/services/logs');
    const { READ_CHUNK_MAX } = jest.requireActual('../../src/runtime/logread') as typeof import('../../src/runtime/logread');
    const READ = READ_CHUNK_MAX - (64 << 10); // each read's size: reads end at multiples of it
    const e = new LogEncoder();
    const T = '2026-01-01T00:00:00.123456789Z';
    const parts: string[] = [];
    let size = 0;
    const add = (l: string) => {
      parts.push(l);
      size += l.length;
    };
    const encoded = (text: string, stream: 'stdout' | 'stderr' = 'stdout') => e.encode(Buffer.from(text), stream, T).toString('latin1');
    const filler = (n: number) => encoded('f'.repeat(n - encoded('').length - 1) + '\n'); // a line of exactly n bytes (n >= 72)
    /** Adds filler lines, then `line` so that its byte `k` is the first byte of read `r`. */
    const place = (line: string, k: number, r: number) => {
      let gap = r * READ - k - size;
      while (gap > 1200) {
        add(filler(1000));
        gap -= 1000;
      }
      if (gap >= 200) {
        add(filler(gap - 100));
        gap = 100;
      }
      expect(gap).toBeGreaterThanOrEqual(72);
      add(filler(gap));
      add(line);
    };
    const esc = encoded('less <than\n', 'stderr');
    place(esc, esc.indexOf('\\u003c') + 2, 1); // inside the escape
    const euro = encoded('price 100€\n');
    place(euro, euro.indexOf('\xe2') + 1, 2); // inside the character
    const keys = encoded('k\n');
    place(keys, keys.indexOf('"stream"') + 3, 3); // inside the stream key
    place(keys, keys.indexOf('\\n') + 1, 4); // between the backslash and the n
    place(keys, keys.length - 1, 5); // the newline first in the read
    place(keys, 0, 6); // a line first in the read
    const long = encoded('é'.repeat(50 << 10) + '\\<\n'); // 100 KiB: longer than the head room
    place(long, 70 << 10, 7);
    const huge = encoded('h'.repeat(READ + (300 << 10)) + '\n', 'stderr'); // longer than a read
    place(huge, 1000, 9);
    const foreign = JSON.stringify({ stream: 'stdout', time: T, log: 'foreign € \n' }) + '\n';
    place(foreign, 20, 12);
    add(encoded('last, no newline'));
    const file = path.join(dir, 'boundaries.log');
    fs.writeFileSync(file, Buffer.from(parts.join(''), 'latin1'));
    const text = fs.readFileSync(file, 'latin1');
    const want = (o: { stdout: boolean; stderr: boolean }) =>
      text
        .split('\n')
        .slice(0, -1)
        .flatMap((l) => {
          const j = JSON.parse(Buffer.from(l, 'latin1').toString('utf8'));
          return (j.stream === 'stdout' ? o.stdout : o.stderr) ? [`${j.stream === 'stdout' ? 1 : 2}:${Buffer.from(j.log).toString('hex')}`] : [];
        });
    const frames = (parts: Buffer[]) => new FrameDecoder().push(Buffer.concat(parts)).map((f) => `${f.stream}:${f.payload.toString('hex')}`);
    const reader = new LogReaderThread(100);
    try {
      for (const o of [{ stdout: true, stderr: true }, { stdout: true, stderr: false }]) {
        const here: Buffer[] = [];
        await streamLogs(file, o, { framed: true, timestamps: false, details: false }, (b) => void here.push(Buffer.from(b)));
        expect(frames(here)).toEqual(want(o));
        const threaded: Buffer[] = [];
        const { openLogFiles } = jest.requireActual('../../src/runtime/logfiles') as typeof import('../../src/runtime/logfiles');
        await reader.stream(openLogFiles(file, 0), o, { framed: true, timestamps: false, details: false }, (b, release) => {
          threaded.push(Buffer.from(b));
          release?.();
        });
        expect(frames(threaded)).toEqual(want(o));
      }
    } finally {
      reader.close();
    }
  });

  test('readers at once on one thread each read into buffers of their own', async () => {
    const files = ['a', 'b', 'c'].map((name, i) => {
      const file = path.join(dir, `${name}.log`);
      const line = String.fromCharCode(0x61 + i).repeat(40 + i * 30) + '\n';
      return { file, want: write(file, Array.from({ length: 60 }, () => ['stdout', line.repeat(1000)] as ['stdout', string])).stdout };
    });
    const got = await Promise.all(files.map((f) => read(f.file, true)));
    got.forEach((g, i) => expect(g.stdout.equals(files[i].want)).toBe(true));
  });

  test('a big plain log comes back whole, raw (TTY) and framed', async () => {
    const file = path.join(dir, 'big.log');
    const line = 'x'.repeat(61) + '\n';
    const want = write(file, Array.from({ length: 400 }, () => ['stdout', line.repeat(1000)] as ['stdout', string]));
    expect((await read(file, false)).stdout.equals(want.stdout)).toBe(true);
    expect((await read(file, true)).stdout.equals(want.stdout)).toBe(true);
  });
});
