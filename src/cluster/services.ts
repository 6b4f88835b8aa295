// Swarm services (docs/services.md): create, list, inspect, update and remove service records in etcd, with their
// names and published ports held in the same transactions. The orchestrator (orchestrator.ts) turns them into tasks.
import { conflict, invalidParameter, isKind, notFound, notImplemented, unavailable } from '../errors';
import { randomName } from '../translate/names';
import { assignPorts, parseServiceSpec, serviceFilter } from '../translate/request/service';
import type { ServiceRecord, ServiceSpec, Versioned } from '../types/swarm';
import { newId } from './ca';
import { OUT_OF_SEQUENCE, type ClusterState } from './state';

const rpc = (code: string, desc: string): string => `rpc error: code = ${code} desc = ${desc}`;

/** The reference's warning for an image it could not resolve to a digest on a registry (berth never does). */
export function digestWarning(image: string): string[] {
  if (image.includes('@')) return [];
  return [`image ${image} could not be accessed on a registry to record\nits digest. Each node will access ${image} independently,\npossibly leading to different nodes running different\nversions of the image.\n`];
}

export interface SwarmServicesDeps {
  /** The cluster state for a manager (the reference's 406/503 answers otherwise). */
  manager: () => ClusterState;
  /** Wakes the orchestrator (a change made here). */
  kick: () => void;
  /** Resolves the spec's network references to swarm networks' ids (404/403 otherwise; cluster/networks.ts). */
  resolveNetworks: (spec: ServiceSpec) => Promise<void>;
}

/** A service by full id, then name, then id prefix — the reference's lookup order. */
export function findService(all: Versioned<ServiceRecord>[], ref: string): Versioned<ServiceRecord> {
  const hit =
    all.find((s) => s.value.id === ref) ??
    all.find((s) => s.value.spec.Name === ref) ??
    (() => {
      const p = all.filter((s) => s.value.id.startsWith(ref));
      if (p.length > 1) throw invalidParameter(`service ${ref} is ambiguous (${p.length} matches found)`);
      return p[0];
    })();
  if (!hit || !ref) throw notFound(`service ${ref} not found`);
  return hit;
}

function heldPorts(all: Versioned<ServiceRecord>[]): Map<string, { id: string; name: string }> {
  const held = new Map<string, { id: string; name: string }>();
  for (const s of all) for (const p of s.value.ports) if (p.PublishMode === 'ingress' && p.PublishedPort) held.set(`${p.Protocol}/${p.PublishedPort}`, { id: s.value.id, name: s.value.spec.Name });
  return held;
}

const sameJSON = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

export class SwarmServices {
  constructor(private readonly d: SwarmServicesDeps) {}

  /** The reference answers the service routes outside a swarm with 503 (406 for nodes and tasks). */
  private state(): ClusterState {
    try {
      return this.d.manager();
    } catch (err) {
      if (isKind(err, 'NotAcceptable')) throw unavailable(err.message);
      throw err;
    }
  }

  async list(filters: Map<string, string[]>): Promise<Versioned<ServiceRecord>[]> {
    const match = serviceFilter(filters);
    const state = this.state();
    const all = await state.patient(() => state.services());
    return all.filter((s) => match(s.value));
  }

  async inspect(ref: string): Promise<Versioned<ServiceRecord>> {
    const state = this.state();
    return findService(await state.patient(() => state.services()), ref);
  }

  async create(body: unknown, registryAuth?: string): Promise<{ id: string; warnings: string[] }> {
    const state = this.state();
    for (let attempt = 0; ; attempt++) {
      const all = await state.services();
      const spec = parseServiceSpec(body, () => randomName((n) => all.some((s) => s.value.spec.Name === n), Math.random));
      await this.d.resolveNetworks(spec);
      const taken = all.find((s) => s.value.spec.Name === spec.Name);
      if (taken) throw conflict(rpc('AlreadyExists', `name conflicts with an existing object: service ${spec.Name} already exists`));
      const now = new Date().toISOString();
      const rec: ServiceRecord = { id: newId(), createdAt: now, updatedAt: now, spec, ports: assignPorts(spec.EndpointSpec?.Ports, heldPorts(all)), specVersion: 1, ...(registryAuth ? { registryAuth } : {}) };
      // a name or port taken between the read and the write: decided again on a fresh read
      if (await state.createService(rec)) {
        this.d.kick();
        return { id: rec.id, warnings: digestWarning(spec.TaskTemplate.ContainerSpec!.Image) };
      }
      if (attempt >= 4) throw conflict(OUT_OF_SEQUENCE);
    }
  }

  /** An update without X-Registry-Auth keeps the service's credentials (as the reference keeps its PullOptions). */
  async update(ref: string, version: number, body: unknown, registryAuth?: string): Promise<{ warnings: string[] }> {
    const state = this.state();
    for (let attempt = 0; ; attempt++) {
      const all = await state.services();
      const cur = findService(all, ref);
      const s = cur.value;
      const spec = parseServiceSpec(body, () => s.spec.Name);
      if (cur.version !== version) throw conflict(OUT_OF_SEQUENCE);
      if (spec.Name !== s.spec.Name) throw notImplemented(rpc('Unimplemented', 'renaming services is not supported'));
      if (!!spec.Mode.Global !== !!s.spec.Mode.Global) throw notImplemented(rpc('Unimplemented', 'service mode change is not allowed'));
      await this.d.resolveNetworks(spec);
      const now = new Date().toISOString();
      const changed = !sameJSON(spec.TaskTemplate, s.spec.TaskTemplate);
      const next: ServiceRecord = {
        ...s,
        spec,
        previousSpec: s.spec,
        updatedAt: now,
        ports: assignPorts(spec.EndpointSpec?.Ports, heldPorts(all), s.id, s.ports),
        specVersion: s.specVersion + (changed ? 1 : 0),
        updateStatus: changed ? { State: 'updating', StartedAt: now, Message: 'update in progress' } : s.updateStatus,
        ...(registryAuth ? { registryAuth } : {}),
      };
      if (await state.updateService(next, s, version)) {
        this.d.kick();
        return { warnings: digestWarning(spec.TaskTemplate.ContainerSpec!.Image) };
      }
      if (attempt >= 4) throw conflict(OUT_OF_SEQUENCE);
    }
  }

  async remove(ref: string): Promise<void> {
    const state = this.state();
    const cur = findService(await state.services(), ref);
    await state.deleteService(cur.value);
    this.d.kick();
  }
}
