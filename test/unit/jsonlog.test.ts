// The json-file codec: byte-exact against lines the reference engine (20.10) wrote, and a lossless round trip.
import { execFileSync } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { decodeLine, incompleteUtf8Tail, LineFramer, LogDecoder, LogEncoder } from '../../src/runtime/jsonlog';
import { frameLines } from '../../src/translate/stream';
import { JSONLOG_WASM } from '../../src/runtime/jsonlog-wasm';
import { fixedNano } from '../../src/services/logs';

const T = '2026-11-22T21:50:56.05024842Z';
const enc = (b: Buffer | string, stream: 'stdout' | 'stderr' = 'stdout') => new LogEncoder().encode(Buffer.from(b as string), stream, T).toString('latin1');

function decodeAll(file: Buffer): { stream: string; log: Buffer; time: string }[] {
  const text = file.toString('latin1');
  const out = [];
  let start = 0;
  for (;;) {
    const nl = text.indexOf('\n', start);
    if (nl < 0) break;
    const l = decodeLine(text, start, nl);
    if (!l) throw new Error(`undecoded line: ${text.slice(start, nl)}`);
    out.push({ stream: l.stream, log: Buffer.from(l.text, 'latin1'), time: l.time });
    start = nl + 1;
  }
  return out;
}

describe('json-file encoding', () => {
  test('escapes exactly as the reference engine wrote them', () => {
    // printf '<a&b>"\\ \r\b\f\n' ; printf '\342\200\250|\377|\n' ; printf 'x\ty\001z' (from the reference's log file)
    expect(enc('<a&b>"\\ \r\b\f\n')).toBe(`{"log":"\\u003ca\\u0026b\\u003e\\"\\\\ \\r\\u0008\\u000c\\n","stream":"stdout","time":"${T}"}\n`);
    expect(new LogEncoder().encode(Buffer.from([0xe2, 0x80, 0xa8, 0x7c, 0xff, 0x7c, 0x0a]), 'stdout', T).toString('latin1')).toBe(`{"log":"\\u2028|\\ufffd|\\n","stream":"stdout","time":"${T}"}\n`);
    expect(enc('x\ty\x01z', 'stderr')).toBe(`{"log":"x\\u0009y\\u0001z","stream":"stderr","time":"${T}"}\n`);
  });

  test('one entry per line, a final partial line as its own entry; multibyte text kept as it is', () => {
    expect(enc('a\nbb\ncé')).toBe([`{"log":"a\\n","stream":"stdout","time":"${T}"}`, `{"log":"bb\\n","stream":"stdout","time":"${T}"}`, `{"log":"cé","stream":"stdout","time":"${Buffer.from(T).toString('latin1')}"}`].map((l) => Buffer.from(l).toString('latin1') + '\n').join(''));
    expect(JSON.parse(Buffer.from(enc('日本\n'), 'latin1').toString('utf8')).log).toBe('日本\n');
  });

  test('the output parses as JSON to the same text (valid UTF-8), and decodes byte-exact', () => {
    const text = 'plain line\n"quoted" \\ back\ttab <html> & 💡 \u2029 end\n\x00\x1f\x7f';
    const file = Buffer.from(enc(text), 'latin1');
    const viaJson = file.toString('utf8').trim().split('\n').map((l) => JSON.parse(l).log).join('');
    expect(viaJson).toBe(text);
    expect(Buffer.concat(decodeAll(file).map((e) => e.log)).toString('utf8')).toBe(text);
  });

  test('random ASCII round-trips byte-exact through the fast decoder', () => {
    const e = new LogEncoder();
    for (let k = 0; k < 50; k++) {
      const ascii = Buffer.from(Array.from(crypto.randomBytes(4000), (b) => b & 0x7f));
      const file = Buffer.from(e.encode(ascii, 'stdout', T));
      expect(Buffer.concat(decodeAll(file).map((x) => x.log)).equals(ascii)).toBe(true);
      // …and random bytes (invalid UTF-8 included) decode to what JSON.parse makes of the same lines
      const bytes = crypto.randomBytes(2000);
      const lines = Buffer.from(e.encode(bytes, 'stderr', T));
      const viaJson = lines.toString('utf8').trim().split('\n').map((l) => JSON.parse(l).log).join('');
      expect(Buffer.concat(decodeAll(lines).map((x) => x.log)).toString('utf8')).toBe(viaJson);
    }
  });

  test('an incomplete UTF-8 character at the end of a read is found', () => {
    const s = Buffer.from('ab€'); // € is 3 bytes
    expect(incompleteUtf8Tail(s)).toBe(0);
    expect(incompleteUtf8Tail(s.subarray(0, 4))).toBe(2);
    expect(incompleteUtf8Tail(s.subarray(0, 3))).toBe(1);
    expect(incompleteUtf8Tail(Buffer.from('abc'))).toBe(0);
  });
});

describe('json-file decoding', () => {
  test('lines with attrs (written by the engine with log options) are decoded', () => {
    const line = `{"log":"hi\\n","stream":"stderr","time":"${T}","attrs":{"a":"b"}}`;
    expect(decodeLine(line, 0, line.length)).toEqual({ stream: 'stderr', text: 'hi\n', time: T, attrs: '{"a":"b"}' });
    // the engine's own order with log options: attrs before time
    const engine = Buffer.from(`{"log":"a \\"q\\"\\n","stream":"stdout","attrs":{"tag":"x \\"y\\"","z":"é"},"time":"${T}"}`).toString('latin1');
    expect(decodeLine(engine, 0, engine.length)).toEqual({ stream: 'stdout', text: 'a "q"\n', time: T, attrs: '{"tag":"x \\"y\\"","z":"é"}' });
  });

  test('other layouts are left to JSON.parse', () => {
    const line = `{"stream":"stdout","log":"x","time":"${T}"}`;
    expect(decodeLine(line, 0, line.length)).toBeUndefined();
  });

  test('escapes written by other encoders decode too: \\t, \\/, surrogate pairs, a lone surrogate', () => {
    const line = `{"log":"a\\tb\\/c\\ud83d\\udca1\\u00e9\\ud800!","stream":"stdout","time":"${T}"}`;
    expect(Buffer.from(decodeLine(line, 0, line.length)!.text, 'latin1').toString('utf8')).toBe('a\tb/c💡é\ufffd!');
  });

  test('timestamps are printed with nine digits, as the engine prints them', () => {
    expect(fixedNano('2026-11-22T21:50:49.99775933Z')).toBe('2026-11-22T21:50:49.997759330Z');
    expect(fixedNano('2026-11-22T21:50:49Z')).toBe('2026-11-22T21:50:49.000000000Z');
  });
});

describe('the SIMD encoder (jsonlog.wat)', () => {
  // Valid UTF-8 made of the pieces that matter: plain runs, newlines, every escaped ASCII byte, U+2028/U+2029 and
  // other characters with the same lead byte, other multibyte characters.
  const PIECES = ['a', 'plain text ', '0123456789abcdef', '\n', '\n\n', '"', '\\', '<', '>', '&', '\r', '\t', '\x00', '\x1f', '\x7f', '\u2028', '\u2029', '\u2020', '\u20ac', 'é', '日本', '💡'];
  const randomText = (pieces: number) => Array.from({ length: pieces }, () => PIECES[crypto.randomInt(PIECES.length)]).join('');

  test('writes exactly what the byte-by-byte encoder writes, at every length and alignment', () => {
    const simd = new LogEncoder();
    const bytewise = new LogEncoder(true);
    for (let k = 0; k < 3000; k++) {
      const text = Buffer.from(randomText(k % 60));
      const pad = Buffer.concat([Buffer.alloc(k % 5), text]).subarray(k % 5);
      for (const stream of ['stdout', 'stderr'] as const) {
        const want = Buffer.from(bytewise.encode(pad, stream, T));
        expect(simd.encode(pad, stream, T).toString('latin1')).toBe(want.toString('latin1'));
      }
    }
    // big chunks, one of only newlines (the module's memory grows to the worst case)
    for (const big of [Buffer.from(randomText(40_000)), Buffer.alloc(300_000, 0x0a), Buffer.alloc(200_000, 0x3c)]) expect(simd.encode(big, 'stdout', T).equals(Buffer.from(bytewise.encode(big, 'stdout', T)))).toBe(true);
    expect(simd.encode(Buffer.alloc(0), 'stdout', T).toString()).toBe(bytewise.encode(Buffer.alloc(0), 'stdout', T).toString());
  });

  test('the embedded module is jsonlog.wat assembled (scripts/build-wasm.sh)', () => {
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'berth-wasm-')), 'jsonlog.wasm');
    execFileSync('wat2wasm', [path.join(__dirname, '../../src/runtime/jsonlog.wat'), '-o', out]);
    expect(fs.readFileSync(out).toString('base64')).toBe(JSONLOG_WASM);
    fs.rmSync(path.dirname(out), { recursive: true });
  });
});

describe('the SIMD decoder (jsonlog.wat)', () => {
  const PIECES = ['a', 'plain text ', '0123456789abcdef', '\n', '"', '\\', '\\n', '<', '&', '\t', '\r', '\x01', '\x7f', 'é', '€', '\u2028', '💡', '/'];
  // berth's own time (nine digits: the layout the decoder finds the line's end in at once), the engine's trimmed ones
  const TIMES = ['2026-11-22T21:50:56.050248420Z', '2026-11-22T21:50:56.05024842Z', '2026-11-22T21:50:56.5Z', '2026-11-22T21:50:56Z'];
  /** What a reader gets for `lines`: a frame (type:hex) per entry JSON.parse reads, of the wanted streams. */
  const viaJson = (lines: string, o: { stdout: boolean; stderr: boolean }) =>
    lines
      .split('\n')
      .slice(0, -1)
      .flatMap((l) => {
        try {
          const j = JSON.parse(Buffer.from(l, 'latin1').toString('utf8'));
          return (j.stream === 'stdout' ? o.stdout : o.stderr) ? [`${j.stream === 'stdout' ? 1 : 2}:${Buffer.from(j.log).toString('hex')}`] : [];
        } catch {
          return [];
        }
      });
  /** The decoder's frames for the lines of `chunk` (a line it stops at is left out, as JSON.parse leaves out the
   *  malformed lines these tests give it). */
  function viaDecoder(d: LogDecoder, chunk: Buffer, o: { stdout: boolean; stderr: boolean }): string[] {
    const frames: string[] = [];
    for (let from = 0; from < chunk.length; ) {
      const r = d.decode(chunk, from, { ...o, framed: true });
      for (let at = 0; at < r.out.length; ) {
        const n = r.out.readUInt32BE(at + 4);
        frames.push(`${r.out[at]}:${r.out.toString('hex', at + 8, at + 8 + n)}`);
        at += 8 + n;
      }
      if (r.stopped >= chunk.length) break;
      from = chunk.indexOf(0x0a, r.stopped) + 1;
    }
    return frames;
  }

  test('decodes as JSON.parse at every length, alignment and time layout, copied in or where it was read', () => {
    const enc = new LogEncoder();
    const copying = new LogDecoder();
    const inPlace = new LogDecoder(64 << 10, 2);
    const [a, b] = inPlace.readBuffers();
    expect(a.length).toBe(64 << 10);
    expect(b.byteOffset).toBeGreaterThanOrEqual(a.byteOffset + a.length + 16);
    for (let k = 0; k < 4000; k++) {
      const stream = k % 3 ? 'stdout' : 'stderr';
      const time = TIMES[k % TIMES.length];
      let lines = '';
      for (let j = 0; j < 1 + (k % 4); j++) {
        const text = Array.from({ length: (k * 7 + j) % 40 }, () => PIECES[crypto.randomInt(PIECES.length)]).join('') + (j % 2 ? '' : '\n');
        lines += enc.encode(Buffer.from(text), stream, time).toString('latin1');
      }
      if (k % 5 === 0) lines += `{"log":"a","stream":"stdout","attrs":{"k":"v"},"time":"${time}"}\n`;
      if (k % 7 === 0) lines += `{"log":"cut ${k}","stream":"stdout","ti\n`; // no closing brace: left to JSON.parse
      if (k % 11 === 0) lines += `{"log":"${'x'.repeat(k % 30)}","stream":"stdout","time":"2026"\n${enc.encode(Buffer.from('after\n'), 'stdout', TIMES[0]).toString('latin1')}`;
      const chunk = Buffer.from(lines, 'latin1');
      for (const o of [{ stdout: true, stderr: true }, { stdout: false, stderr: true }]) {
        const want = viaJson(lines, o);
        expect(viaDecoder(copying, chunk, o)).toEqual(want);
        // in a read buffer, at any alignment, with the bytes after the chunk not newlines or with them
        const slot = k % 2 ? a : b;
        const at = k % 37;
        slot.fill(k % 4 ? 0x0a : 0x22, 0, at + chunk.length + 64);
        chunk.copy(slot, at);
        expect(viaDecoder(inPlace, slot.subarray(at, at + chunk.length), o)).toEqual(want);
      }
    }
    // short lines in other layouts: the next line's newline 41 bytes after a line's stream, where berth's time puts it
    let pairs = '';
    for (let i = 0; i < 6; i++) for (let j = 0; j < 6; j++) pairs += `{"log":"a${i}","stream":"stdout","":${' '.repeat(i)}1}\n{"log":"","stream":"stderr","":${' '.repeat(j)}0}\n`;
    const o = { stdout: true, stderr: true };
    expect(viaDecoder(copying, Buffer.from(pairs, 'latin1'), o)).toEqual(viaJson(pairs, o));
    expect(() => inPlace.decode(Buffer.from('{"log":"x\\n","stream":"stdout","time":"2026-11-22T21:50:56Z"}\n'), 0, { stdout: true, stderr: true, framed: true })).toThrow(/outside/);
  });
});

test('the SIMD line framer frames as frameLines does', () => {
  const framer = new LineFramer();
  const cases: Buffer[] = [
    Buffer.alloc(0),
    Buffer.from('\n'),
    Buffer.from('a'),
    Buffer.from('no newline at the end, longer than sixteen bytes'),
    Buffer.from('\n\n\nx\n\n'),
    Buffer.from('y\n'.repeat(3000)),
    Buffer.from('a line of exactly 63 bytes, as the bench writes them......!!\n'.repeat(1040)),
    Buffer.concat([Buffer.alloc(70000, 0x61), Buffer.from('\nshort\n'), Buffer.alloc(300, 0x62)]), // a length over 65535
  ];
  for (let i = 0; i < 200; i++) {
    // random lines of 0-40 bytes, with or without a final newline
    const parts: string[] = [];
    for (let j = crypto.randomInt(1, 60); j > 0; j--) parts.push('z'.repeat(crypto.randomInt(0, 40)));
    cases.push(Buffer.from(parts.join('\n') + (i % 2 ? '\n' : '')));
  }
  for (const c of cases) for (const type of [1, 2]) expect(Buffer.from(framer.frame(type, c)).equals(frameLines(type, c))).toBe(true);
  // the encoder's framing of the chunk it encoded last (a live follower's, from the encoder's copy of it)
  const enc = new LogEncoder();
  const other = new LogEncoder();
  for (const c of cases) {
    if (!c.length) continue;
    enc.encode(c, 'stdout', '2026-01-01T00:00:00Z');
    for (const type of [1, 2]) expect(Buffer.from(enc.frameLast(type)!).equals(frameLines(type, c))).toBe(true);
  }
  other.encode(Buffer.from('another log\n'), 'stderr', '2026-01-01T00:00:00Z');
  expect(enc.frameLast(1)).toBeUndefined(); // no longer the last the SIMD encoder encoded
  enc.encode(Buffer.from([0x61, 0xff, 0x0a]), 'stdout', '2026-01-01T00:00:00Z');
  expect(enc.frameLast(1)).toBeUndefined(); // invalid UTF-8: not the SIMD encoder's
});
