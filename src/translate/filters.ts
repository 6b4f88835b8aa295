// The engine's `filters` for the lists (containers, images, networks, volumes) and for GET /events: which keys each
// accepts at each API version, the checks of their values with the engine's messages, and the matching — pure.
// Lookups a filter needs (the container a `since` names, the image an `ancestor` names, whether a volume is in use)
// are done by the caller and passed in as data.
import { invalidParameter } from '../errors';
import type { ContainerRecord } from '../types/container';
import type { EngineEvent } from '../types/event';
import type { ResolvedImage } from '../types/image';
import type { NetworkRecord } from '../types/network';
import type { Volume } from '../types/volume';
import { stateName } from './response/containers';
import { ApiVersion, supports } from './version/features';

/** Parsed `filters` (http/query's queryFilters): name → values. */
export type Filters = Map<string, string[]>;

/** `label=key` or `label=key=value` against one set of labels. */
export function labelMatches(labels: Record<string, string> | null | undefined, want: string): boolean {
  // own keys only: `label=valueOf` must not match every object through its prototype
  const lab = labels ?? {};
  const i = want.indexOf('=');
  const key = i < 0 ? want : want.slice(0, i);
  if (!Object.hasOwn(lab, key)) return false;
  return i < 0 || lab[key] === want.slice(i + 1);
}

/** Every `label` filter matches (the lists' rule; events need one of them). */
export const labelsMatch = (labels: Record<string, string> | null | undefined, want: string[]): boolean => want.every((w) => labelMatches(labels, w));

/** 400 `Invalid filter 'x'` for a key the list does not know. */
export function checkFilterKeys(f: Filters, allowed: readonly string[]): void {
  for (const k of f.keys()) if (!allowed.includes(k)) throw invalidParameter(`Invalid filter '${k}'`);
}

/**
 * A `dangling` filter as the engine reads it (undefined without one): true when any value is `true` (for volumes
 * also `1`), else false when any is `false` (`0`), as written (`TRUE` is none of them); otherwise 400 naming every
 * value as Go prints a list (`dangling=[x y]`).
 */
function dangling(f: Filters, kind: 'images' | 'volumes'): boolean | undefined {
  const d = f.get('dangling');
  if (!d?.length) return undefined;
  if (d.some((x) => x === 'true' || (kind === 'volumes' && x === '1'))) return true;
  if (d.some((x) => x === 'false' || (kind === 'volumes' && x === '0'))) return false;
  throw invalidParameter(`Invalid filter 'dangling=[${d.join(' ')}]'`);
}

// ---- containers ----

const STATUSES = ['created', 'restarting', 'running', 'removing', 'paused', 'exited', 'dead'];
const HEALTH = ['starting', 'healthy', 'unhealthy', 'none'];

export function containerFilterKeys(v: ApiVersion): string[] {
  return ['exited', 'status', 'label', 'id', 'name', ...(supports(v, 'ListFilterIsolation') ? ['isolation'] : []), ...(supports(v, 'ListFilterAncestorEtc') ? ['ancestor', 'before', 'since', 'volume', 'network', 'health'] : [])];
}

/** The `status` and `exited` values (checked before any lookup, as the engine does). */
export function checkContainerFilterValues(f: Filters, v: ApiVersion): void {
  for (const s of f.get('status') ?? []) {
    const ok = STATUSES.filter((x) => (x !== 'created' || supports(v, 'ListFilterStatusCreated')) && (x !== 'dead' || supports(v, 'ListFilterStatusDead')));
    if (!ok.includes(s)) throw invalidParameter(`Invalid filter 'status=${s}'`);
  }
  for (const e of f.get('exited') ?? []) if (!/^-?\d+$/.test(e)) throw invalidParameter(`strconv.Atoi: parsing "${e}": invalid syntax`);
}

/** GET /containers/json, parsed and checked: what the container service lists. */
export interface ContainerListQuery {
  all: boolean;
  limit: number;
  /** A container reference (query `since`/`before`, or the filters of the same name). */
  since?: string;
  before?: string;
  filters: Filters;
}

/**
 * The listed containers, newest first, before the `ancestor` filter (which needs image lookups: see
 * matchAncestors). `since`/`before` are the records those references name.
 */
export function filterContainers(all: ContainerRecord[], q: ContainerListQuery, refs: { since?: ContainerRecord; before?: ContainerRecord }): ContainerRecord[] {
  const f = q.filters;
  let list = [...all].sort((a, b) => (a.Created < b.Created ? 1 : a.Created > b.Created ? -1 : 0));
  const s = refs.since;
  if (s) list = list.filter((c) => c.Created > s.Created);
  const b = refs.before;
  if (b) list = list.filter((c) => c.Created < b.Created);
  const anyFilterImpliesAll = !!(q.since || q.before || q.limit > 0 || f.has('status') || f.has('exited'));
  // (a restarting container is running to the engine: listed without `all`, and not `exited`)
  if (!q.all && !anyFilterImpliesAll) list = list.filter((c) => c.State.Running || c.State.Restarting);
  const statuses = f.get('status');
  if (statuses?.length) list = list.filter((c) => statuses.includes(stateName(c)));
  const exited = f.get('exited');
  if (exited?.length) list = list.filter((c) => !c.State.Running && !c.State.Restarting && c.State.StartedAt !== '0001-01-01T00:00:00Z' && exited.map(Number).includes(c.State.ExitCode));
  const labels = f.get('label');
  if (labels?.length) list = list.filter((c) => labelsMatch(c.Config.Labels, labels));
  const ids = f.get('id');
  if (ids?.length) list = list.filter((c) => ids.some((i) => c.Id.startsWith(i)));
  const names = f.get('name');
  if (names?.length) list = list.filter((c) => names.some((n) => new RegExp(n).test(c.Name.slice(1)) || new RegExp(n).test(c.Name)));
  const iso = f.get('isolation');
  if (iso?.length) list = list.filter((c) => iso.includes(c.HostConfig.Isolation || 'default'));
  const nets = f.get('network');
  if (nets?.length)
    list = list.filter((c) => {
      const on = c.Networks ? Object.entries(c.Networks) : [[c.HostConfig.NetworkMode === 'default' ? 'bridge' : c.HostConfig.NetworkMode ?? '', { NetworkID: '' }] as const];
      return nets.some((n) => on.some(([name, e]) => name === n || (!!e.NetworkID && e.NetworkID.startsWith(n))));
    });
  const health = f.get('health');
  if (health?.length) {
    for (const h of health) if (!HEALTH.includes(h)) throw invalidParameter(`Unrecognised filter value for health: ${h}`);
    list = list.filter((c) => health.includes(c.State.Health?.Status ?? 'none'));
  }
  const vols = f.get('volume');
  if (vols?.length) list = list.filter((c) => (c.MountPoints ?? []).some((m) => vols.some((v) => m.Name === v || m.Destination === v)));
  if (q.limit > 0) list = list.slice(0, q.limit);
  return list;
}

/** The `ancestor` filter: `imageIds` are the ids the ancestor references resolve to (or the reference itself). */
export function matchAncestors(list: ContainerRecord[], ancestors: string[], imageIds: Set<string>): ContainerRecord[] {
  return list.filter((c) => imageIds.has(c.Image) || ancestors.includes(c.ImageName));
}

// ---- images ----

export const IMAGE_FILTERS = ['dangling', 'label', 'reference', 'before', 'since'];

/** GET /images/json: `filters`, plus `all` and the old `filter` (a reference pattern). */
export interface ImageListQuery {
  all: boolean;
  name?: string;
  filters: Filters;
  /** The images the `before` and `since` filters name (the handler looks them up: a missing one is its 404). */
  before?: ResolvedImage;
  since?: ResolvedImage;
}

/** The reference a `before` or `since` image filter names (the engine walks every value: the last one stays). */
export const imageFilterRef = (f: Filters, key: 'before' | 'since'): string | undefined => f.get(key)?.at(-1);

/** Checks the keys and the `dangling` value (before the list is read). */
export function checkImageFilters(f: Filters): void {
  checkFilterKeys(f, IMAGE_FILTERS);
  dangling(f, 'images');
}

/** The engine's glob match of a reference filter against one name (repo:tag or repo@digest) or its repository. */
function nameMatch(name: string, pattern: string): boolean {
  const re = new RegExp('^' + pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]') + '$');
  const at = name.indexOf('@');
  return re.test(name) || re.test(at >= 0 ? name.slice(0, at) : name.slice(0, name.lastIndexOf(':')));
}

/**
 * The image as a list filtered by reference shows it, or undefined when no name matches: like the engine, only the
 * names that match are listed (an image tagged a:1 and b:1 listed with filter=a shows RepoTags ["a:1"]).
 */
function referenceMatch(img: ResolvedImage, patterns: string[]): ResolvedImage | undefined {
  const keep = (n: string) => patterns.some((p) => nameMatch(n, p));
  const repoTags = img.repoTags.filter(keep);
  const repoDigests = img.repoDigests.filter(keep);
  return repoTags.length || repoDigests.length ? { ...img, repoTags, repoDigests } : undefined;
}

export function filterImages(all: ResolvedImage[], q: ImageListQuery): ResolvedImage[] {
  const f = q.filters;
  let list = all;
  // Untagged images that others were committed from are intermediate: shown with all=1 only, never dangling.
  const parents = new Set(list.map((i) => i.parent).filter(Boolean));
  const intermediate = (i: ResolvedImage) => i.repoTags.length === 0 && i.repoDigests.length === 0 && parents.has(i.id);
  if (!q.all) list = list.filter((i) => !intermediate(i));
  const want = dangling(f, 'images');
  if (want !== undefined) list = list.filter((i) => (i.repoTags.length === 0 && !parents.has(i.id)) === want);
  // (created strictly before or after the named image's creation, as the engine compares them)
  const { before, since } = q;
  if (before) list = list.filter((i) => Date.parse(i.created) < Date.parse(before.created));
  if (since) list = list.filter((i) => Date.parse(i.created) > Date.parse(since.created));
  const labels = f.get('label');
  if (labels?.length) list = list.filter((i) => labelsMatch(i.config.config?.Labels, labels));
  const refs = [...(f.get('reference') ?? []), ...(q.name ? [q.name] : [])];
  if (refs.length) list = list.flatMap((i) => referenceMatch(i, refs) ?? []);
  return list;
}

// ---- networks ----

export const networkFilterKeys = (v: ApiVersion): string[] => (supports(v, 'NetworkFilterDriverLabel') ? ['id', 'name', 'type', 'driver', 'label'] : ['id', 'name', 'type']);

export function filterNetworks(all: NetworkRecord[], f: Filters): NetworkRecord[] {
  let list = all;
  const ids = f.get('id');
  if (ids?.length) list = list.filter((n) => ids.some((i) => n.Id.includes(i)));
  const names = f.get('name');
  if (names?.length) list = list.filter((n) => names.some((i) => n.Name.includes(i)));
  const types = f.get('type');
  if (types?.length) {
    // (the reference's words; it answers 500)
    for (const t of types) if (t !== 'custom' && t !== 'builtin') throw invalidParameter(`invalid filter: 'type'='${t}'`);
    list = list.filter((n) => types.includes(n.Predefined ? 'builtin' : 'custom'));
  }
  const drivers = f.get('driver');
  if (drivers?.length) list = list.filter((n) => drivers.includes(n.Driver));
  const labels = f.get('label');
  if (labels?.length) list = list.filter((n) => labelsMatch(n.Labels, labels));
  return list;
}

// ---- volumes ----

export const volumeFilterKeys = (v: ApiVersion): string[] => (supports(v, 'VolumeLabelsScope') ? ['dangling', 'name', 'driver', 'label'] : ['dangling']);

/** `inUse` says whether a container uses the volume (the `dangling` filter). */
export function filterVolumes(all: Volume[], f: Filters, inUse: (name: string) => boolean): Volume[] {
  let list = all;
  const want = dangling(f, 'volumes');
  if (want !== undefined) list = list.filter((v) => !inUse(v.Name) === want);
  const names = f.get('name');
  if (names?.length) list = list.filter((v) => names.some((n) => v.Name.includes(n)));
  const drivers = f.get('driver');
  if (drivers?.length) list = list.filter((v) => drivers.some((d) => v.Driver.includes(d)));
  const labels = f.get('label');
  if (labels?.length) list = list.filter((v) => labelsMatch(v.Labels, labels));
  return list;
}

// ---- events ----

const EVENT_FILTERS = ['container', 'event', 'image', 'label', 'type', 'volume', 'network', 'daemon'];
const EVENT_TYPES = ['container', 'image', 'volume', 'network', 'daemon', 'plugin', 'service', 'node', 'secret', 'config'];

/**
 * The event filter of GET /events. Unknown keys (and `daemon` unless allowDaemon) answer 400 when strict and are
 * ignored otherwise (the handler passes `EventsBadFilter400` and `EventsDaemon`).
 */
export function compileEventFilter(f: Filters, strict: boolean, allowDaemon: boolean): (e: EngineEvent) => boolean {
  for (const [k, vals] of f) {
    if (!EVENT_FILTERS.includes(k) || (k === 'daemon' && !allowDaemon)) {
      if (strict) throw invalidParameter(`Invalid filter '${k}'`);
      f.delete(k);
    }
    if (k === 'type' && strict) for (const t of vals) if (!EVENT_TYPES.includes(t)) throw invalidParameter(`Invalid event type filter '${t}'`);
  }
  // Compiled once for the subscription: only the keys it gives are checked for each event (in this order), and the
  // values' own forms (a name without its '/', an image without ':latest') are made here, not at every event.
  const checks: ((e: EngineEvent, a: Record<string, string>) => boolean)[] = [];
  const add = <V>(k: string, prep: (v: string) => V, pred: (v: V, e: EngineEvent, a: Record<string, string>) => boolean) => {
    const vals = f.get(k);
    if (!vals || vals.length === 0) return;
    const vs = vals.map(prep);
    checks.push((e, a) => vs.some((v) => pred(v, e, a)));
  };
  const same = (v: string) => v;
  add('type', same, (t, e) => t === e.Type);
  add('event', (x) => ({ x, prefix: `${x}:` }), ({ x, prefix }, e) => x === e.Action || e.Action.startsWith(prefix));
  add('container', (c) => ({ c, bare: c.replace(/^\//, '') }), ({ c, bare }, e, a) => e.Type === 'container' && (e.Actor.ID === c || e.Actor.ID.startsWith(c) || a.name === c || a.name === bare));
  add('image', (i) => ({ i, short: i.replace(/:latest$/, '') }), ({ i, short }, e, a) => (e.Type === 'image' && (e.Actor.ID === i || a.name === i)) || (e.Type === 'container' && (a.image === i || a.image === short)));
  add('label', same, (l, _e, a) => labelMatches(a, l));
  add('volume', same, (v, e, a) => e.Type === 'volume' && (e.Actor.ID === v || a.name === v));
  add('network', same, (n, e, a) => e.Type === 'network' && (e.Actor.ID === n || e.Actor.ID.startsWith(n) || a.name === n));
  add('daemon', same, (d, e, a) => e.Type === 'daemon' && (e.Actor.ID === d || a.name === d));
  return (e) => {
    const a = e.Actor.Attributes;
    for (const check of checks) if (!check(e, a)) return false;
    return true;
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
