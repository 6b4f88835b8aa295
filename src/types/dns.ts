// The embedded DNS resolver's extension point (docs/dns.md) — types only.

/** The container asking, and the user-defined networks it has a live endpoint on. */
export interface DnsClient {
  containerId: string;
  networkIds: string[];
}

export interface DnsAddresses {
  v4: string[];
  v6: string[];
}

/** A source of names for containers on user-defined networks (berth's containers; swarm services and VIPs). */
export interface NameSource {
  /** The addresses of `name` (lower case, no trailing dot) for this client, or undefined when the name is not this source's. */
  resolve(name: string, client: DnsClient): DnsAddresses | undefined;
  /** The name of `ip` for this client (PTR), when it is this source's. */
  reverse?(ip: string, client: DnsClient): string | undefined;
}

/** What the resolver does with a query: answer from a source, or forward it to these servers (none: SERVFAIL). */
export type DnsDecision = { kind: 'answer'; addresses: DnsAddresses } | { kind: 'ptr'; name: string } | { kind: 'forward'; servers: string[] };
