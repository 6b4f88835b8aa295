// GET /containers/(id)/top: the host's ps with the client's arguments, cut to the rows of the container's pids (as
// the engine does it: one ps over the host, filtered by the PID column).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { invalidParameter, systemError } from '../errors';

const execFileP = promisify(execFile);

export interface TopTable {
  Titles: string[];
  Processes: string[][];
}

/** Runs `ps psArgs` and keeps the rows whose PID is one of `pids`; the last column keeps its spaces (the command). */
export async function psTop(psArgs: string, pids: Set<number>): Promise<TopTable> {
  let out: string;
  try {
    ({ stdout: out } = await execFileP('ps', psArgs.split(/\s+/).filter(Boolean), { maxBuffer: 16 << 20 }));
  } catch (err) {
    // the reference's words: ps's first line on stderr, or its exit status (a 500 there; the client's arguments: 400)
    const e = err as { stderr?: string; code?: number | string; message: string };
    const first = (e.stderr ?? '').split('\n')[0];
    if (typeof e.code !== 'number') throw systemError(`ps: ${e.message}`);
    throw invalidParameter(`ps: ${first || `exit status ${e.code}`}`);
  }
  const lines = out.split('\n').filter((l) => l.trim() !== '');
  const titles = lines[0].trim().split(/\s+/);
  const pidCol = titles.indexOf('PID');
  if (pidCol < 0) throw systemError(`Couldn't find PID field in ps output`);
  const rows = lines.slice(1).map((l) => {
    const f = l.trim().split(/\s+/);
    return [...f.slice(0, titles.length - 1), f.slice(titles.length - 1).join(' ')];
  });
  return { Titles: titles, Processes: rows.filter((r) => pids.has(Number(r[pidCol]))) };
}
