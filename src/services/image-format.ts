// What images are made of, shared by load, import, pull, push and commit: layer media types and descriptors, chain
// ids, short ids, and the engine's progress text.
import { sha256Digest } from '../containerd/content';

export const MT_LAYER = 'application/vnd.oci.image.layer.v1.tar';
export const MT_LAYER_GZIP = 'application/vnd.oci.image.layer.v1.tar+gzip';

export interface LayerDesc {
  mediaType: string;
  digest: string;
  size: number;
}

export interface LoadProgress {
  (msg: Record<string, unknown>): void;
}

export function chainIds(diffIds: string[]): string[] {
  const out: string[] = [];
  for (const d of diffIds) out.push(out.length ? sha256Digest(`${out[out.length - 1]} ${d}`) : d);
  return out;
}

export const shortId = (id: string): string => id.replace(/^sha256:/, '').slice(0, 12);

/** The engine's progress bar text: "[=====>     ]  1.2MB/2.4MB". */
export function progressBar(current: number, total: number): string {
  const width = 50;
  const n = total > 0 ? Math.min(width, Math.floor((current / total) * width)) : 0;
  const bar = '='.repeat(Math.max(0, n - 1)) + (n > 0 ? (n === width ? '=' : '>') : '') + ' '.repeat(width - n);
  return `[${bar}] ${humanSize(current)}/${humanSize(total)}`;
}

export function humanSize(n: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let i = 0;
  let v = n;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${Number(v.toPrecision(4))}${units[i]}`;
}
