// The wait before asking containerd again after `failures` failed attempts in a row: doubling from `firstMs` up to
// `maxMs`, each wait drawn between its half and its whole (jitter: many watchers do not retry in step).
export function backoffMs(failures: number, firstMs: number, maxMs: number, random: () => number = Math.random): number {
  const base = Math.min(firstMs * 2 ** Math.min(Math.max(failures - 1, 0), 30), maxMs);
  return Math.round(base / 2 + random() * (base / 2));
}
