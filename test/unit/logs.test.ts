// The json-file log reader: tail from the end, since, stream filters, follow until the container stops.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readLogs, LogEntry } from '../../src/services/logs';

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
