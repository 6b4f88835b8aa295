// Golden answers of the reference engine (test/golden/containers/<version>.json, written by
// scripts/capture-golden.sh) and the comparison of berth's answers with them: the same keys at every level, the same
// JSON types, the same values except where a value is instance-specific (normalise() says which and why).
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface GoldenRequest {
  method: string;
  /** May hold {created}, {running}, {exited}: the ids of the containers the setup made. */
  path: string;
  body?: unknown;
}

export interface GoldenAnswer {
  name: string;
  request: GoldenRequest;
  status: number;
  contentType: string | null;
  body?: unknown;
  text?: string;
}

export interface GoldenFixture {
  engine: string;
  version: string;
  setup: GoldenAnswer[];
  answers: GoldenAnswer[];
  /** Requests that remove what the setup made (test/golden/{images,volumes,networks} only). */
  cleanup?: GoldenRequest[];
}

export const GOLDEN_DIR = path.join(__dirname, '..', 'golden', 'containers');

export function loadGolden(version: string, area = 'containers'): GoldenFixture {
  return JSON.parse(fs.readFileSync(path.join(GOLDEN_DIR, '..', area, `${version}.json`), 'utf8')) as GoldenFixture;
}

const PREDEFINED_NETWORKS = ['bridge', 'host', 'none'];

/** The ids (and their 12-character prefixes) in a text, written as {name} and {name:12}. */
function replaceIds(s: string, ids: Ids): string {
  for (const [name, id] of Object.entries(ids)) s = s.split(id).join(`{${name}}`).split(id.slice(0, 12)).join(`{${name}:12}`);
  return s;
}

/**
 * An image's id and its layers' digests under `name` (hex, so that `sha256:<hex>` and the 12-character short id both
 * become placeholders): they depend on the host's busybox binary that the test images are built from, so a golden
 * test keeps working when that package changes.
 */
export function addImageIds(ids: Ids, name: string, inspect: { Id?: string; RootFS?: { Layers?: string[] } } | undefined): void {
  if (!inspect?.Id) return;
  ids[name] = inspect.Id.replace(/^sha256:/, '');
  (inspect.RootFS?.Layers ?? []).forEach((l, i) => (ids[`${name}-layer${i}`] = l.replace(/^sha256:/, '')));
}

let sizesComparable = true;
/** Whether berth's test image is byte for byte the one the fixtures were captured with (then sizes compare too). */
export function sameTestImage(same: boolean): void {
  sizesComparable = same;
}

/** Container ids by the setup's names for them (created, running, exited). */
export type Ids = Record<string, string>;

export function fillPath(template: string, ids: Ids, refIds: Ids = {}): string {
  // Ids of the reference's own written into a captured path (e.g. an image id) stand for berth's.
  return replaceIds(template, refIds).replace(/\{([\w-]+)(:12)?\}/g, (_, k: string, short?: string) => {
    if (!ids[k]) throw new Error(`no id for {${k}} in ${template}`);
    return short ? ids[k].slice(0, 12) : ids[k];
  });
}

const ZERO_TIME = '0001-01-01T00:00:00Z';
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;
// go-units HumanDuration texts, as in "Up 3 seconds" and "Exited (0) 2 minutes ago".
const DURATION = /(Less than a second|About a minute|About an hour|\d+ (second|minute|hour|day|week|month|year)s?)/;

/**
 * Replaces what differs between two engines running the same requests by placeholders that keep the JSON type,
 * so that keys, types and every other value still compare exactly. Each rule says why the value cannot match.
 */
export function normalise(value: unknown, ids: Ids, key = '', parent = ''): unknown {
  // The volume list's order: the engine's is a Go map's (no order), so both lists are compared sorted by Name.
  if (key === 'Volumes' && parent === '' && Array.isArray(value)) {
    const byName = (x: unknown) => String((x as { Name?: unknown })?.Name);
    return [...value].sort((x, y) => (byName(x) < byName(y) ? -1 : byName(x) > byName(y) ? 1 : 0)).map((v) => normalise(v, ids, key, parent));
  }
  // A container's mount points: the engine keeps them in a Go map (no order), so both lists are compared sorted by
  // Destination.
  if (key === 'Mounts' && Array.isArray(value)) {
    const dest = (x: unknown) => String((x as { Destination?: unknown })?.Destination);
    return [...value].sort((x, y) => (dest(x) < dest(y) ? -1 : dest(x) > dest(y) ? 1 : 0)).map((v) => normalise(v, ids, key, parent));
  }
  if (Array.isArray(value)) return value.map((v) => normalise(v, ids, key, parent));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    const o = value as Record<string, unknown>;
    // A network object (list item or inspect) of a pre-defined network: the engine made it at its first start with
    // a random id, which no request of the test names.
    const predefinedNetwork = 'IPAM' in o && typeof o.Name === 'string' && PREDEFINED_NETWORKS.includes(o.Name);
    for (const [k, v] of Object.entries(value)) {
      // A network's Containers is keyed by container id: the key is written as the id's name too.
      if (parent === '' && key === 'Containers') {
        out[replaceIds(k, ids)] = normalise(v, ids, k, key);
        continue;
      }
      if (predefinedNetwork && k === 'Id') {
        out[k] = '<network id>';
        continue;
      }
      // The storage driver's own directories (under the engine's data root): which there are is compared, not where.
      if (key === 'GraphDriver' && k === 'Data' && v !== null && typeof v === 'object') {
        out[k] = Object.fromEntries(Object.keys(v).map((d) => [d, '<path>']));
        continue;
      }
      // Inspect's Volumes (v1.18, v1.19): a volume's directory is under the engine's data root; a bind's is compared.
      if (key === 'Volumes' && parent === '' && typeof v === 'string' && v.endsWith('/_data')) {
        out[k] = '<path>';
        continue;
      }
      // A volume's directory in a mount point (under the engine's data root), and an anonymous volume's random name.
      if (key === 'Mounts' && o.Type === 'volume' && typeof v === 'string') {
        if (k === 'Source' && v !== '') out[k] = '<path>';
        else if (k === 'Name' && /^[0-9a-f]{64}$/.test(v)) out[k] = '<anonymous volume>';
        else out[k] = normalise(v, ids, k, key);
        continue;
      }
      out[k] = normalise(v, ids, k, key);
    }
    return out;
  }
  if (typeof value === 'number') {
    // When the container was made: a clock reading (list: UNIX seconds).
    if (key === 'Created') return 0;
    // A host process id: only whether there is one (non-zero) is the API's.
    if (key === 'Pid') return value === 0 ? 0 : 1;
    // The prefix length of the address handed out at start: the bridge's subnet, a host setting.
    if (key === 'IPPrefixLen') return value === 0 ? 0 : 1;
    // Bytes used by the layers and the writable layer: depend on the storage driver and on what the run wrote.
    if (key === 'SizeRw' || key === 'SizeRootFs') return 0;
    // An image's size (list, inspect, history) depends on the host's busybox binary the test image is built from:
    // compared only when berth's test image is the fixture's (see sameTestImage).
    if ((key === 'Size' || key === 'VirtualSize') && !sizesComparable) return 0;
    return value;
  }
  if (typeof value !== 'string') return value;
  let s = value;
  // Ids of what the setup made (containers, networks) are random; Hostname and error texts use the 12-character prefix.
  s = replaceIds(s, ids);
  // Clock readings; the zero time ("never") is kept as it is.
  if (RFC3339.test(s) && s !== ZERO_TIME) return '<time>';
  // Files the engine keeps under its own data root; only whether there is one is the API's.
  // A volume's Mountpoint is such a file too (<data root>/volumes/<name>/_data in the reference).
  if (['ResolvConfPath', 'HostnamePath', 'HostsPath', 'LogPath', 'SandboxKey', 'Mountpoint'].includes(key) && s !== '') return '<path>';
  // Random ids of the network sandbox, the network and the endpoint; only whether there is one is the API's.
  if (['SandboxID', 'NetworkID', 'EndpointID'].includes(key) && s !== '') return '<network id>';
  // Addresses handed out at start (empty for NetworkMode none, but normalised so that one rule covers all modes).
  // (Not a network's IPAM Config entries: those are the addresses the client asked for, and are compared.)
  if (['IPAddress', 'Gateway', 'MacAddress', 'GlobalIPv6Address', 'IPv6Gateway', 'LinkLocalIPv6Address'].includes(key) && parent !== 'Config' && s !== '') return '<address>';
  // "Up 3 seconds", "Exited (137) 2 seconds ago": the duration is a clock reading, the rest is compared.
  if (key === 'Status' && parent === '') return s.replace(DURATION, '<duration>');
  return s;
}

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/**
 * Differences between two normalised JSON values, one line each:
 *   `<path>: only in the reference`, `<path>: only in berth`, `<path>: <type> in the reference, <type> in berth`,
 *   `<path>: <value> in the reference, <value> in berth`, `<path>: <n> items in the reference, <m> in berth`.
 */
export function jsonDiff(ref: unknown, got: unknown, at = '$'): string[] {
  const tr = typeOf(ref);
  const tg = typeOf(got);
  if (tr !== tg) return [`${at}: ${tr} ${JSON.stringify(ref)} in the reference, ${tg} ${JSON.stringify(got)} in berth`];
  if (tr === 'array') {
    const a = ref as unknown[];
    const b = got as unknown[];
    if (a.length !== b.length) return [`${at}: ${a.length} items in the reference, ${b.length} in berth: ${JSON.stringify(ref)} vs ${JSON.stringify(got)}`];
    return a.flatMap((x, i) => jsonDiff(x, b[i], `${at}[${i}]`));
  }
  if (tr === 'object') {
    const a = ref as Record<string, unknown>;
    const b = got as Record<string, unknown>;
    const out: string[] = [];
    for (const k of Object.keys(a)) if (!(k in b)) out.push(`${at}.${k}: only in the reference`);
    for (const k of Object.keys(b)) if (!(k in a)) out.push(`${at}.${k}: only in berth`);
    for (const k of Object.keys(a)) if (k in b) out.push(...jsonDiff(a[k], b[k], `${at}.${k}`));
    return out;
  }
  return ref === got ? [] : [`${at}: ${JSON.stringify(ref)} in the reference, ${JSON.stringify(got)} in berth`];
}
