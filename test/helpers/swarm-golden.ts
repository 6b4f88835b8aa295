// The comparison of berth's swarm answers with the reference's (test/golden/swarm/1.24.json): the same keys at
// every level and the same JSON types, and the same values except where a value belongs to one instance (ids,
// times, versions, the CA, tokens, addresses, the host's description and the engine's plugins: listed here).
const INSTANCE_KEYS = new Set([
  'ID', 'NodeID', 'CreatedAt', 'UpdatedAt', 'Index', 'TrustRoot', 'CertIssuerPublicKey', 'Worker', 'Manager',
  'Hostname', 'NanoCPUs', 'MemoryBytes', 'EngineVersion', 'Addr', 'NodeAddr',
]);

export function shapeOf(v: unknown, key = ''): unknown {
  if (key === 'Plugins') return 'plugins';
  if (Array.isArray(v)) return v.map((x) => shapeOf(x));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, shapeOf(x, k)]));
  if (INSTANCE_KEYS.has(key)) return typeof v;
  return v;
}

export function shapeOfSwarm(g: { swarm: unknown; nodes: unknown; tasks: unknown; infoSwarm: unknown }): unknown {
  return { swarm: shapeOf(g.swarm), nodes: shapeOf(g.nodes), tasks: shapeOf(g.tasks), infoSwarm: shapeOf(g.infoSwarm) };
}
