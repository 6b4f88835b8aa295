// Swarm-scoped (overlay) networks in etcd (docs/overlay.md): create, list and remove the records, with their names
// held in the same transaction; each node keeps a cache of them for the network service's list and lookups; the
// services' network references are resolved here.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { conflict, forbidden, invalidParameter, isKind, notFound, unavailable } from '../errors';
import type { CreateNetworkRequest, NetworkDriver, NetworkRecord, SwarmNetworkSource } from '../types/network';
import type { NodeRole, ServiceSpec } from '../types/swarm';
import { newId } from './ca';
import { overlayRecord, serviceNetworks } from './overlay-plan';
import { guard, type ClusterState } from './state';

const execFileP = promisify(execFile);
const PREFIX = '/berth/swarm/';
const K = {
  networks: PREFIX + 'networks/',
  network: (id: string) => PREFIX + 'networks/' + id,
  name: (name: string) => PREFIX + 'network-names/' + name,
};

export interface SwarmNetworksDeps {
  /** The cluster state for a manager (the reference's 406/503 answers otherwise). */
  manager: () => ClusterState;
  /** This node in its swarm (undefined outside one). */
  current: () => { state: ClusterState; nodeId: string; role: NodeRole } | undefined;
  /** A local (node-scoped) network by name, id or id prefix, if there is one. */
  localNetwork: (ref: string) => NetworkRecord | undefined;
  /** This node's driver of an overlay network (cluster/overlay.ts). */
  driver: (net: NetworkRecord) => NetworkDriver;
}

const rpc = (code: string, desc: string): string => `rpc error: code = ${code} desc = ${desc}`;

/** The overlay networks of the swarm, read from etcd. */
export async function readNetworks(state: ClusterState): Promise<NetworkRecord[]> {
  const r = await guard(state.client.getAll().prefix(K.networks).exec());
  return r.kvs.map((kv) => ({ ...(JSON.parse(kv.value.toString('utf8')) as NetworkRecord), version: Number(kv.mod_revision) })).sort((a, b) => a.Created.localeCompare(b.Created));
}

/** A network by full id, then name, then a unique id prefix (the reference's lookup). */
export function findNetwork(all: NetworkRecord[], ref: string): NetworkRecord | undefined {
  if (!ref) return undefined;
  return all.find((n) => n.Id === ref) ?? all.find((n) => n.Name === ref) ?? (() => {
    const p = all.filter((n) => n.Id.startsWith(ref));
    return p.length === 1 ? p[0] : undefined;
  })();
}

export class SwarmNetworks implements SwarmNetworkSource {
  private cache: NetworkRecord[] = [];

  constructor(private readonly d: SwarmNetworksDeps) {}

  /** The reference answers the swarm routes outside a swarm and on a worker with 503. */
  private state(): ClusterState {
    try {
      return this.d.manager();
    } catch (err) {
      if (isKind(err, 'NotAcceptable')) throw unavailable(err.message);
      throw err;
    }
  }

  list(): NetworkRecord[] {
    return this.cache;
  }

  driver(id: string): NetworkDriver | undefined {
    const net = this.cache.find((n) => n.Id === id);
    return net ? this.d.driver(net) : undefined;
  }

  async refresh(): Promise<void> {
    const c = this.d.current();
    if (!c) {
      this.cache = [];
      return;
    }
    this.cache = await readNetworks(c.state);
  }

  async create(req: CreateNetworkRequest): Promise<{ id: string; warning: string }> {
    const state = this.state();
    for (let attempt = 0; attempt < 5; attempt++) {
      const all = await readNetworks(state);
      const rec = overlayRecord(req, newId(), new Date().toISOString(), all, await routedSubnets());
      const r = await guard(
        state.client
          .if(K.network(rec.Id), 'Create', '==', 0)
          .and(K.name(rec.Name), 'Create', '==', 0)
          .then(state.client.put(K.network(rec.Id)).value(JSON.stringify(rec)), state.client.put(K.name(rec.Name)).value(rec.Id))
          .commit(),
      );
      if (r.succeeded) {
        this.cache = [...all, rec];
        return { id: rec.Id, warning: '' };
      }
      // a name (or, decided on an older read, a subnet or VNI) taken meanwhile: decided again on a fresh read
    }
    throw conflict(`network with name ${req.Name} already exists`);
  }

  /** Refused while a service names the network (the reference's FailedPrecondition, status 400). */
  async remove(id: string): Promise<void> {
    const state = this.state();
    const net = (await readNetworks(state)).find((n) => n.Id === id);
    if (!net) throw notFound(`network ${id} not found`);
    const user = (await state.services()).find((s) => serviceNetworks(s.value.spec).some((n) => n.Target === id));
    if (user) throw invalidParameter(rpc('FailedPrecondition', `network ${id} is in use by service ${user.value.id}`));
    const inUse = (await state.tasks()).find((t) => (t.value.networks ?? []).some((a) => a.networkId === id) && t.value.Status.State !== 'shutdown' && !['complete', 'failed', 'rejected', 'orphaned', 'remove'].includes(t.value.Status.State));
    if (inUse) throw invalidParameter(rpc('FailedPrecondition', `network ${id} is in use by task ${inUse.value.ID}`));
    await guard(state.client.if(K.network(id), 'Create', '>', 0).then(state.client.delete().key(K.network(id)), state.client.delete().key(K.name(net.Name))).commit());
    this.cache = this.cache.filter((n) => n.Id !== id);
  }

  /**
   * A service spec's network references resolved to the networks' ids (stored so, as the reference); an unknown one
   * is 404 (the reference's 500), a local one 403 with the reference's message.
   */
  async resolveSpec(spec: ServiceSpec): Promise<void> {
    const lists = [spec.Networks, spec.TaskTemplate.Networks].filter((l): l is NonNullable<typeof l> => !!l?.length);
    if (!lists.length) return;
    const all = await readNetworks(this.state());
    for (const list of lists) {
      for (const n of list) {
        const hit = findNetwork(all, n.Target);
        if (hit) {
          n.Target = hit.Id;
          continue;
        }
        const local = this.d.localNetwork(n.Target);
        if (local) throw forbidden(`The network ${n.Target} cannot be used with services. Only networks scoped to the swarm can be used, such as those created with the overlay driver.`);
        throw notFound(`network ${n.Target} not found`);
      }
    }
  }
}

/** Subnets routed on this host (a default overlay subnet avoids them). */
async function routedSubnets(): Promise<string[]> {
  try {
    const { stdout } = await execFileP('ip', ['-4', 'route', 'show']);
    return stdout
      .split('\n')
      .map((l) => l.trim().split(/\s+/)[0])
      .filter((d) => !!d && /^[\d.]+\/\d+$/.test(d));
  } catch {
    return [];
  }
}
