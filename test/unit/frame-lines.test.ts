// Logs are framed an entry (line) to a frame, as the engine frames them.
import { frameLines, framedLinesLength, writeFramedLines } from '../../src/translate/stream';
import { FrameDecoder } from '../../src/http/stream';

const payloads = (b: Buffer) => new FrameDecoder().push(b).map((f) => `${f.stream}:${f.payload.toString()}`);

test('a frame per line, the last line without a newline a frame of its own; short and long lines alike', () => {
  expect(payloads(frameLines(1, Buffer.from('hello\nworld\npart')))).toEqual(['1:hello\n', '1:world\n', '1:part']);
  expect(payloads(frameLines(2, Buffer.from('\n\nx\n')))).toEqual(['2:\n', '2:\n', '2:x\n']);
  expect(frameLines(1, Buffer.alloc(0)).length).toBe(0);
  const long = 'y'.repeat(5000) + '\n';
  expect(payloads(frameLines(1, Buffer.from(`a\n${long}b`)))).toEqual(['1:a\n', `1:${long}`, '1:b']);
});

test('the length is what is written, at any offset', () => {
  for (const text of ['', 'a', 'a\n', 'ab\ncd', '\n'.repeat(7), 'z'.repeat(63) + '\n' + 'q'.repeat(64) + '\n']) {
    const p = Buffer.from(text);
    const out = Buffer.alloc(framedLinesLength(p) + 10);
    expect(writeFramedLines(out, 10, 1, p)).toBe(out.length);
    expect(payloads(out.subarray(10)).map((s) => s.slice(2)).join('')).toBe(text);
  }
});
