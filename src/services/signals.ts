// Signal names and numbers as the engine accepts them (SIGTERM, TERM, 15, RTMIN+3).
import * as os from 'node:os';
import { invalidParameter } from '../errors';

const SIGNALS = os.constants.signals as Record<string, number>;

export function parseSignal(s: string | number | undefined, dflt = 'SIGKILL'): number {
  const raw = s === undefined || s === '' ? dflt : String(s);
  if (/^\d+$/.test(raw)) {
    const n = Number(raw);
    if (n <= 0 || n > 64) throw invalidParameter(`Invalid signal: ${raw}`);
    return n;
  }
  const up = raw.toUpperCase();
  const name = up.startsWith('SIG') ? up : `SIG${up}`;
  if (name in SIGNALS) return SIGNALS[name];
  const rt = /^SIGRTM(IN|AX)([+-]\d+)?$/.exec(name);
  if (rt) {
    const n = (rt[1] === 'IN' ? 34 : 64) + Number(rt[2] ?? 0);
    if (n >= 34 && n <= 64) return n;
  }
  throw invalidParameter(`Invalid signal: ${raw}`);
}
