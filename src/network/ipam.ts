// IPv4 address arithmetic for network creation: CIDR parsing, overlap checks, the engine's default address pools
// (the next free /16 in 172.17–172.31, then /20s in 192.168/16), and the gateway a subnet gets by default.
import { invalidParameter, notFound } from '../errors';

export interface Cidr {
  base: number; // network address as an unsigned 32-bit integer
  prefix: number;
}

export function ipToInt(ip: string): number {
  const parts = ip.split('.');
  if (parts.length !== 4) throw invalidParameter(`invalid IP address: ${ip}`);
  let n = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) throw invalidParameter(`invalid IP address: ${ip}`);
    n = n * 256 + Number(p);
  }
  return n;
}

export function intToIp(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

function mask(prefix: number): number {
  return prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
}

export function parseCidr(s: string): Cidr {
  const m = /^([\d.]+)\/(\d{1,2})$/.exec(s);
  if (!m || Number(m[2]) > 32) throw invalidParameter(`invalid CIDR address: ${s}`);
  const prefix = Number(m[2]);
  return { base: (ipToInt(m[1]) & mask(prefix)) >>> 0, prefix };
}

export function contains(c: Cidr, ip: string): boolean {
  return ((ipToInt(ip) & mask(c.prefix)) >>> 0) === c.base;
}

export function overlaps(a: Cidr, b: Cidr): boolean {
  const p = Math.min(a.prefix, b.prefix);
  return ((a.base & mask(p)) >>> 0) === ((b.base & mask(p)) >>> 0);
}

/** The first usable address of a subnet: the engine's default gateway. */
export function defaultGateway(subnet: string): string {
  return intToIp(parseCidr(subnet).base + 1);
}

/** The engine's default pools, in the order it hands them out. */
export function* defaultPools(): Generator<string> {
  for (let b = 17; b <= 31; b++) yield `172.${b}.0.0/16`;
  for (let c = 0; c < 256; c += 16) yield `192.168.${c}.0/20`;
}

/** daemon.json default-address-pools: each base split into subnets of its size, in order (the engine's). */
export function* configuredPools(pools: { base: string; size: number }[]): Generator<string> {
  for (const p of pools) {
    const b = parseCidr(p.base);
    const step = 2 ** (32 - p.size);
    for (let n = b.base; n < b.base + 2 ** (32 - b.prefix); n += step) yield `${intToIp(n)}/${p.size}`;
  }
}

/** The first pool (the configured ones, else the engine's defaults) overlapping none of `taken` (networks, host routes). */
export function pickSubnet(taken: string[], pools?: { base: string; size: number }[]): string {
  const used = taken.map(parseCidr);
  for (const p of pools?.length ? configuredPools(pools) : defaultPools()) {
    const c = parseCidr(p);
    if (!used.some((u) => overlaps(u, c))) return p;
  }
  // (the reference's status: 404)
  throw notFound('could not find an available, non-overlapping IPv4 address pool among the defaults to assign to the network');
}

/**
 * First and last assignable addresses of an IP range inside a subnet, as host-local's rangeStart/rangeEnd. Like the
 * engine's allocator, every address of the range is assignable except the subnet's own network and broadcast
 * addresses (range 10.99.0.128/25 in 10.99.0.0/24: .128 to .254; the engine's first container there gets .128).
 */
export function rangeBounds(range: string, subnet: string): { rangeStart: string; rangeEnd: string } {
  const r = parseCidr(range);
  const s = parseCidr(subnet);
  const last = (c: { base: number; prefix: number }) => c.base + 2 ** (32 - c.prefix) - 1;
  const small = s.prefix >= 31; // /31 and /32 subnets have no network or broadcast address to leave out
  const start = !small && r.base === s.base ? r.base + 1 : r.base;
  const end = !small && last(r) === last(s) ? last(r) - 1 : last(r);
  return { rangeStart: intToIp(start), rangeEnd: intToIp(end) };
}

/** The MAC address the engine gives an interface with an IPv4 address: 02:42 and the address's four bytes. */
export function macFromIPv4(ip: string): string {
  const n = ipToInt(ip);
  return ['02', '42', ...[n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].map((b) => b.toString(16).padStart(2, '0'))].join(':');
}

/**
 * The address host-local hands out next in a subnet (or its range): the first one after the last it handed out
 * (`last`, undefined or outside the range: from the range's start), wrapping around, skipping the gateway and what
 * `taken` says is leased; undefined when the range is full.
 */
export function nextAddress(o: { subnet: string; rangeStart?: string; rangeEnd?: string; gateway?: string; last?: string; taken: (ip: string) => boolean }): string | undefined {
  const s = parseCidr(o.subnet);
  const size = 2 ** (32 - s.prefix);
  const small = s.prefix >= 31;
  const start = o.rangeStart ? ipToInt(o.rangeStart) : small ? s.base : s.base + 1;
  const end = o.rangeEnd ? ipToInt(o.rangeEnd) : small ? s.base + size - 1 : s.base + size - 2;
  if (end < start) return undefined;
  const gateway = o.gateway ? ipToInt(o.gateway) : s.base + 1;
  let last: number | undefined;
  try {
    last = o.last ? ipToInt(o.last) : undefined;
  } catch {
    last = undefined;
  }
  const first = last !== undefined && last >= start && last < end ? last + 1 : start;
  for (let i = 0, n = first; i <= end - start; i++, n = n === end ? start : n + 1) {
    if (n === gateway) continue;
    const ip = intToIp(n);
    if (!o.taken(ip)) return ip;
  }
  return undefined;
}

/** IPv6 (dual-stack networks): the same questions with 128-bit addresses. */
export function isIPv6(addrOrCidr: string): boolean {
  return addrOrCidr.includes(':');
}

function ip6ToBig(ip: string): bigint {
  const halves = ip.split('::');
  if (halves.length > 2 || !/^[0-9a-fA-F:]+$/.test(ip)) throw invalidParameter(`invalid IP address: ${ip}`);
  const part = (h: string) => (h ? h.split(':') : []);
  const head = part(halves[0]);
  const tail = halves.length === 2 ? part(halves[1]) : [];
  const fill = 8 - head.length - tail.length;
  if ((halves.length === 1 && fill !== 0) || fill < 0) throw invalidParameter(`invalid IP address: ${ip}`);
  const groups = [...head, ...Array(halves.length === 2 ? fill : 0).fill('0'), ...tail];
  let n = 0n;
  for (const g of groups) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) throw invalidParameter(`invalid IP address: ${ip}`);
    n = (n << 16n) | BigInt(parseInt(g, 16));
  }
  return n;
}

function bigToIp6(n: bigint): string {
  const groups: string[] = [];
  for (let i = 7; i >= 0; i--) groups.push(((n >> BigInt(i * 16)) & 0xffffn).toString(16));
  // the longest run of zero groups becomes "::", as Go prints it
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== '0') {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > bestLen) [best, bestLen] = [i, j - i];
    i = j;
  }
  if (best < 0) return groups.join(':');
  return `${groups.slice(0, best).join(':')}::${groups.slice(best + bestLen).join(':')}`;
}

export interface Cidr6 {
  base: bigint;
  prefix: number;
}

const mask6 = (prefix: number): bigint => (prefix === 0 ? 0n : ((1n << 128n) - 1n) ^ ((1n << BigInt(128 - prefix)) - 1n));

export function parseCidr6(s: string): Cidr6 {
  const m = /^([0-9a-fA-F:]+)\/(\d{1,3})$/.exec(s);
  if (!m || Number(m[2]) > 128) throw invalidParameter(`invalid CIDR address: ${s}`);
  const prefix = Number(m[2]);
  return { base: ip6ToBig(m[1]) & mask6(prefix), prefix };
}

export function contains6(c: Cidr6, ip: string): boolean {
  return (ip6ToBig(ip) & mask6(c.prefix)) === c.base;
}

export function overlaps6(a: Cidr6, b: Cidr6): boolean {
  const p = Math.min(a.prefix, b.prefix);
  return (a.base & mask6(p)) === (b.base & mask6(p));
}

/** A subnet as Go prints a parsed one (the network address, `2001:db8:1::5/64` → `2001:db8:1::/64`). */
export function canonicalCidr6(subnet: string): string {
  const c = parseCidr6(subnet);
  return `${bigToIp6(c.base)}/${c.prefix}`;
}

/**
 * The default bridge's IPv6 address for an interface, as the engine's bridge driver makes it when the subnet leaves
 * at least 48 host bits: the subnet's prefix with the MAC address as the last six bytes.
 */
export function macAddress6(subnet: string, mac: string): string {
  const c = parseCidr6(subnet);
  const low = BigInt(`0x${mac.split(':').join('')}`);
  return bigToIp6((c.base & ~((1n << 48n) - 1n)) | low);
}

/** A subnet's first address, the engine's default IPv6 gateway too. */
export function defaultGateway6(subnet: string): string {
  return bigToIp6(parseCidr6(subnet).base + 1n);
}

/** Whether two subnets of any family overlap (different families never do). */
export function overlapsAny(a: string, b: string): boolean {
  if (isIPv6(a) !== isIPv6(b)) return false;
  return isIPv6(a) ? overlaps6(parseCidr6(a), parseCidr6(b)) : overlaps(parseCidr(a), parseCidr(b));
}
