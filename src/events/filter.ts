// The engine's event filters (container, event, image, label, type, volume, network, daemon).
import { invalidParameter } from '../errors';
import type { EngineEvent } from './types';

export const EVENT_FILTERS = ['container', 'event', 'image', 'label', 'type', 'volume', 'network', 'daemon'];
const TYPES = ['container', 'image', 'volume', 'network', 'daemon', 'plugin', 'service', 'node', 'secret', 'config'];

export function compileEventFilter(f: Map<string, string[]>, strict: boolean, allowDaemon: boolean): (e: EngineEvent) => boolean {
  for (const [k, vals] of f) {
    if (!EVENT_FILTERS.includes(k) || (k === 'daemon' && !allowDaemon)) {
      if (strict) throw invalidParameter(`Invalid filter '${k}'`);
      f.delete(k);
    }
    if (k === 'type' && strict) for (const t of vals) if (!TYPES.includes(t)) throw invalidParameter(`Invalid event type filter '${t}'`);
  }
  const any = (k: string, pred: (v: string) => boolean) => {
    const vals = f.get(k);
    return !vals || vals.length === 0 || vals.some(pred);
  };
  return (e) => {
    const a = e.Actor.Attributes;
    return (
      any('type', (t) => t === e.Type) &&
      any('event', (x) => x === e.Action || e.Action.startsWith(`${x}:`)) &&
      any('container', (c) => e.Type === 'container' && (e.Actor.ID === c || e.Actor.ID.startsWith(c) || a.name === c || a.name === c.replace(/^\//, ''))) &&
      any('image', (i) => (e.Type === 'image' && (e.Actor.ID === i || a.name === i)) || (e.Type === 'container' && (a.image === i || a.image === i.replace(/:latest$/, '')))) &&
      any('label', (l) => {
        const idx = l.indexOf('=');
        return idx < 0 ? l in a : a[l.slice(0, idx)] === l.slice(idx + 1);
      }) &&
      any('volume', (v) => e.Type === 'volume' && (e.Actor.ID === v || a.name === v)) &&
      any('network', (n) => e.Type === 'network' && (e.Actor.ID === n || e.Actor.ID.startsWith(n) || a.name === n)) &&
      any('daemon', (d) => e.Type === 'daemon' && (e.Actor.ID === d || a.name === d))
    );
  };
}

/** `since`/`until`: unix seconds with an optional fraction, or RFC 3339; returns nanoseconds. */
export function parseEventTime(s: string | undefined): number | undefined {
  if (s === undefined || s === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(s)) {
    const [sec, frac = ''] = s.split('.');
    return Number(sec) * 1e9 + Number(frac.padEnd(9, '0').slice(0, 9));
  }
  const ms = Date.parse(s);
  if (Number.isNaN(ms)) throw invalidParameter(`failed to parse value ${s} as a timestamp`);
  return ms * 1e6;
}
