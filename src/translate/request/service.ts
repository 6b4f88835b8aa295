// Service requests — pure: a ServiceSpec checked and normalised to the reference's stored form (with its messages),
// published ports assigned, the services list filter, placement constraints (parse and match), and the container a
// task runs as (a create body). Where the reference answers 500 for a client's mistake (a bad constraint, an unknown
// network), the caller's error kind makes it a 4xx.
import { invalidParameter } from '../../errors';
import { labelsMatch } from '../filters';
import type { ContainerSpec, EndpointSpec, NodeRecord, PortConfig, ServiceMount, ServiceRecord, ServiceSpec, TaskRecord, TaskSpec, UpdateConfigSpec } from '../../types/swarm';

const rpc = (code: string, desc: string): string => `rpc error: code = ${code} desc = ${desc}`;
const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** The published ports the reference assigns when a port names none. */
export const PORT_RANGE = { min: 30000, max: 32767 };

const goType = (v: unknown): string => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v === 'boolean' ? 'bool' : typeof v);

/** An unsigned integer field, or Go's decoder message for what is there instead. */
function uint(v: unknown, field: string, goField: string, type = 'uint64'): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number') throw invalidParameter(`json: cannot unmarshal ${goType(v)} into Go struct field ${goField}.${field} of type ${type}`);
  if (!Number.isInteger(v) || v < 0) throw invalidParameter(`json: cannot unmarshal number ${v} into Go struct field ${goField}.${field} of type ${type}`);
  return v;
}

function int(v: unknown, field: string, goField: string, type = 'int64'): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v)) throw invalidParameter(`json: cannot unmarshal ${goType(v)} into Go struct field ${goField}.${field} of type ${type}`);
  return v;
}

function strings(v: unknown, field: string, goField: string): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw invalidParameter(`json: cannot unmarshal ${goType(v)} into Go struct field ${goField}.${field} of type []string`);
  return v as string[];
}

function stringMap(v: unknown, field: string, goField: string): Record<string, string> | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isObj(v) || Object.values(v).some((x) => typeof x !== 'string')) throw invalidParameter(`json: cannot unmarshal ${goType(v)} into Go struct field ${goField}.${field} of type map[string]string`);
  return v as Record<string, string>;
}

/** A field as Go's decoder finds it: the exact name, else one that differs only in case. */
function goField(o: Record<string, unknown>, name: string): unknown {
  if (name in o) return o[name];
  const k = Object.keys(o).find((x) => x.toLowerCase() === name.toLowerCase());
  return k === undefined ? undefined : o[k];
}

const NAME_RE = /^[a-zA-Z0-9](?:[-_]*[A-Za-z0-9]+)*$/;

/** A constraint `key==value` or `key!=value`. */
export interface Constraint {
  key: string;
  op: '==' | '!=';
  value: string;
}

export function parseConstraint(s: string): Constraint {
  const m = /^(.*?)(==|!=)(.*)$/.exec(s);
  if (!m) throw invalidParameter(rpc('Unknown', 'constraint expected one operator from ==, !='));
  const key = m[1].trim();
  const value = m[3].trim();
  if (!/^[a-zA-Z0-9._-]+$/.test(key)) throw invalidParameter(rpc('Unknown', `key '${key}' is invalid`));
  if (!value) throw invalidParameter(rpc('Unknown', `value '' is invalid`));
  return { key, op: m[2] as '==' | '!=', value };
}

/** What a constraint can be matched against: the node record and its engine's labels. */
export function nodeAttribute(n: NodeRecord, key: string): string | undefined {
  const k = key.toLowerCase();
  if (k === 'node.id') return n.id;
  if (k === 'node.hostname') return n.spec.Name || n.description.hostname;
  if (k === 'node.role') return n.spec.Role;
  if (k === 'node.platform.os') return n.description.os;
  if (k === 'node.platform.arch') return n.description.architecture;
  if (key.startsWith('node.labels.')) return n.spec.Labels?.[key.slice('node.labels.'.length)];
  if (key.startsWith('engine.labels.')) return n.description.engineLabels?.[key.slice('engine.labels.'.length)];
  return undefined;
}

/**
 * Whether a node satisfies every constraint. As the reference's: `==` needs the attribute present and equal (case
 * insensitive for the node attributes), `!=` is true for a node without it; an unknown key matches no node.
 */
export function matchConstraints(cs: Constraint[], n: NodeRecord): boolean {
  return cs.every((c) => {
    const known = /^(node\.(id|hostname|role|platform\.os|platform\.arch|labels\..+)|engine\.labels\..+)$/i.test(c.key);
    if (!known) return false;
    const v = nodeAttribute(n, c.key);
    const ci = !/^(node|engine)\.labels\./.test(c.key);
    const eq = v !== undefined && (ci ? v.toLowerCase() === c.value.toLowerCase() : v === c.value);
    return c.op === '==' ? eq : !eq;
  });
}

function parseMount(m: unknown): ServiceMount {
  if (!isObj(m)) throw invalidParameter(`json: cannot unmarshal ${goType(m)} into Go struct field ContainerSpec.TaskTemplate.ContainerSpec.Mounts of type mount.Mount`);
  const type = m.Type === undefined || m.Type === '' ? 'volume' : String(m.Type);
  if (!['bind', 'volume', 'tmpfs'].includes(type)) throw invalidParameter(rpc('InvalidArgument', `ContainerSpec: invalid mount type: ${type}`));
  const target = typeof m.Target === 'string' ? m.Target : '';
  if (!target) throw invalidParameter(rpc('InvalidArgument', 'ContainerSpec: mount target must be provided'));
  if (!target.startsWith('/')) throw invalidParameter(rpc('InvalidArgument', `ContainerSpec: invalid mount target, must be an absolute path: ${target}`));
  const source = typeof m.Source === 'string' ? m.Source : '';
  if (type === 'bind' && !source.startsWith('/')) throw invalidParameter(rpc('InvalidArgument', `ContainerSpec: invalid bind mount source, must be an absolute path: ${source}`));
  if (type === 'tmpfs' && source) throw invalidParameter(rpc('InvalidArgument', 'ContainerSpec: invalid tmpfs source, source must be empty'));
  return { ...m, Type: type, ...(source ? { Source: source } : {}), Target: target };
}

function parseContainerSpec(c: Record<string, unknown>): ContainerSpec {
  const G = 'ServiceSpec.TaskTemplate.ContainerSpec';
  const image = typeof c.Image === 'string' ? c.Image : '';
  if (!image) throw invalidParameter(rpc('InvalidArgument', 'ContainerSpec: image reference must be provided'));
  const out: ContainerSpec = { Image: image };
  const labels = stringMap(c.Labels, 'Labels', G);
  if (labels && Object.keys(labels).length) out.Labels = labels;
  const cmd = strings(c.Command, 'Command', G);
  if (cmd?.length) out.Command = cmd;
  const args = strings(c.Args, 'Args', G);
  if (args?.length) out.Args = args;
  if (typeof c.Hostname === 'string' && c.Hostname) out.Hostname = c.Hostname;
  const env = strings(c.Env, 'Env', G);
  if (env?.length) out.Env = env;
  if (typeof c.Dir === 'string' && c.Dir) out.Dir = c.Dir;
  if (typeof c.User === 'string' && c.User) out.User = c.User;
  if (Array.isArray(c.Mounts) && c.Mounts.length) out.Mounts = c.Mounts.map(parseMount);
  const grace = int(c.StopGracePeriod, 'StopGracePeriod', G);
  if (grace !== undefined && grace !== 0) out.StopGracePeriod = grace;
  out.Isolation = typeof c.Isolation === 'string' && c.Isolation ? c.Isolation : 'default';
  return out;
}

const MIN_MEMORY = 4 * 1024 * 1024;

function parseResources(r: unknown, field: 'Limits' | 'Reservations'): { NanoCPUs?: number; MemoryBytes?: number } | undefined {
  if (r === undefined || r === null) return undefined;
  if (!isObj(r)) throw invalidParameter(`json: cannot unmarshal ${goType(r)} into Go struct field ResourceRequirements.TaskTemplate.Resources.${field} of type swarm.Resources`);
  const out: { NanoCPUs?: number; MemoryBytes?: number } = {};
  const cpu = int(r.NanoCPUs, 'NanoCPUs', `Resources.TaskTemplate.Resources.${field}`);
  const mem = int(r.MemoryBytes, 'MemoryBytes', `Resources.TaskTemplate.Resources.${field}`);
  if (cpu) out.NanoCPUs = cpu;
  if (mem) {
    if (mem < MIN_MEMORY) throw invalidParameter(rpc('InvalidArgument', `invalid memory value ${mem}: Must be at least 4MiB`));
    out.MemoryBytes = mem;
  }
  return out;
}

function parseTaskTemplate(t: Record<string, unknown>): TaskSpec {
  const G = 'ServiceSpec.TaskTemplate';
  if (t.ContainerSpec !== undefined && t.ContainerSpec !== null && !isObj(t.ContainerSpec)) {
    throw invalidParameter(`json: cannot unmarshal ${goType(t.ContainerSpec)} into Go struct field TaskSpec.TaskTemplate.ContainerSpec of type swarm.ContainerSpec`);
  }
  if (!isObj(t.ContainerSpec)) throw invalidParameter('mismatched Runtime and *Spec fields');
  const out: TaskSpec = { ContainerSpec: parseContainerSpec(t.ContainerSpec), ForceUpdate: 0 };
  if (isObj(t.Resources)) {
    const limits = parseResources(t.Resources.Limits, 'Limits');
    const reservations = parseResources(t.Resources.Reservations, 'Reservations');
    const res: NonNullable<TaskSpec['Resources']> = {};
    if (limits) res.Limits = limits;
    if (reservations) res.Reservations = reservations;
    out.Resources = res;
  }
  if (isObj(t.RestartPolicy)) {
    const r = t.RestartPolicy;
    const cond = r.Condition === undefined || r.Condition === '' ? undefined : String(r.Condition);
    if (cond !== undefined && !['none', 'on-failure', 'any'].includes(cond)) throw invalidParameter(`invalid RestartCondition: "${cond}"`);
    const rp: NonNullable<TaskSpec['RestartPolicy']> = {};
    if (cond) rp.Condition = cond as 'none' | 'on-failure' | 'any';
    const delay = int(r.Delay, 'Delay', `RestartPolicy.${G}.RestartPolicy`);
    if (delay !== undefined) {
      if (delay < 0) throw invalidParameter(rpc('InvalidArgument', 'TaskSpec: restart-delay cannot be negative'));
      rp.Delay = delay;
    }
    const max = uint(r.MaxAttempts, 'MaxAttempts', `RestartPolicy.${G}.RestartPolicy`);
    if (max !== undefined) rp.MaxAttempts = max;
    const win = int(r.Window, 'Window', `RestartPolicy.${G}.RestartPolicy`);
    if (win !== undefined) {
      if (win < 0) throw invalidParameter(rpc('InvalidArgument', 'TaskSpec: restart-window cannot be negative'));
      rp.Window = win;
    }
    out.RestartPolicy = rp;
  }
  if (isObj(t.Placement)) {
    const cs = strings(t.Placement.Constraints, 'Constraints', `Placement.${G}.Placement`);
    if (cs?.length) {
      cs.forEach(parseConstraint);
      out.Placement = { Constraints: cs };
    }
  }
  if (isObj(t.LogDriver)) {
    const ld: NonNullable<TaskSpec['LogDriver']> = {};
    if (typeof t.LogDriver.Name === 'string' && t.LogDriver.Name) ld.Name = t.LogDriver.Name;
    const opts = stringMap(t.LogDriver.Options, 'Options', `Driver.${G}.LogDriver`);
    if (opts && Object.keys(opts).length) ld.Options = opts;
    out.LogDriver = ld;
  }
  const fu = uint(t.ForceUpdate, 'ForceUpdate', 'TaskSpec.TaskTemplate');
  out.ForceUpdate = fu ?? 0;
  out.Runtime = 'container';
  return out;
}

function parseEndpointSpec(e: Record<string, unknown>): EndpointSpec {
  const mode = e.Mode === undefined || e.Mode === '' ? 'vip' : String(e.Mode);
  if (mode !== 'vip' && mode !== 'dnsrr') throw invalidParameter(`invalid resolution mode: "${mode}"`);
  const out: EndpointSpec = { Mode: mode };
  if (Array.isArray(e.Ports) && e.Ports.length) {
    out.Ports = e.Ports.map((p): PortConfig => {
      if (!isObj(p)) throw invalidParameter(`json: cannot unmarshal ${goType(p)} into Go struct field EndpointSpec.EndpointSpec.Ports of type swarm.PortConfig`);
      const target = uint(p.TargetPort, 'TargetPort', 'PortConfig.EndpointSpec.Ports', 'uint32') ?? 0;
      const published = uint(p.PublishedPort, 'PublishedPort', 'PortConfig.EndpointSpec.Ports', 'uint32');
      // the reference stores an unknown protocol as tcp
      const proto = p.Protocol === 'udp' || p.Protocol === 'sctp' ? p.Protocol : 'tcp';
      const port: PortConfig = { Protocol: proto, TargetPort: target, PublishMode: p.PublishMode === 'host' ? 'host' : 'ingress' };
      if (typeof p.Name === 'string' && p.Name) port.Name = p.Name;
      if (published) port.PublishedPort = published;
      return { ...(port.Name ? { Name: port.Name } : {}), Protocol: port.Protocol, TargetPort: port.TargetPort, ...(published ? { PublishedPort: published } : {}), PublishMode: port.PublishMode };
    });
    if (mode === 'dnsrr' && out.Ports.some((p) => p.PublishMode === 'ingress')) {
      throw invalidParameter(rpc('InvalidArgument', "EndpointSpec: port published with ingress mode can't be used with dnsrr mode"));
    }
  }
  return out;
}

function parseUpdateConfig(u: Record<string, unknown>): UpdateConfigSpec {
  const G = 'UpdateConfig.UpdateConfig';
  const action = u.FailureAction === undefined || u.FailureAction === '' ? 'pause' : String(u.FailureAction);
  if (!['pause', 'continue', 'rollback'].includes(action)) throw invalidParameter(rpc('InvalidArgument', `TaskSpec: unrecognized FailureAction: ${action}`));
  const delay = int(u.Delay, 'Delay', G);
  if (delay !== undefined && delay < 0) throw invalidParameter(rpc('InvalidArgument', 'TaskSpec: update-delay cannot be negative'));
  const out = { Parallelism: uint(u.Parallelism, 'Parallelism', G) ?? 0 } as UpdateConfigSpec;
  if (delay) out.Delay = delay;
  out.FailureAction = action as UpdateConfigSpec['FailureAction'];
  const monitor = int(u.Monitor, 'Monitor', G);
  if (monitor) out.Monitor = monitor;
  out.MaxFailureRatio = typeof u.MaxFailureRatio === 'number' ? u.MaxFailureRatio : 0;
  out.Order = u.Order === 'start-first' ? 'start-first' : 'stop-first';
  return out;
}

/**
 * A create or update body as the reference stores it, checked in the reference's order (the engine's decoding and
 * conversion first, then swarmkit's validation). `name` is the generated name when the body has none.
 */
export function parseServiceSpec(body: unknown, generatedName: () => string): ServiceSpec {
  if (!isObj(body)) throw invalidParameter(`json: cannot unmarshal ${goType(body)} into Go value of type swarm.ServiceSpec`);
  const labels = stringMap(body.Labels, 'Labels', 'ServiceSpec.Annotations') ?? {};
  const tt = body.TaskTemplate;
  if (tt !== undefined && tt !== null && !isObj(tt)) throw invalidParameter(`json: cannot unmarshal ${goType(tt)} into Go struct field ServiceSpec.TaskTemplate of type swarm.TaskSpec`);
  let mode: ServiceSpec['Mode'] = { Replicated: { Replicas: 1 } };
  if (body.Mode !== undefined && body.Mode !== null) {
    if (!isObj(body.Mode)) throw invalidParameter(`json: cannot unmarshal ${goType(body.Mode)} into Go struct field ServiceSpec.Mode of type swarm.ServiceMode`);
    // Go's decoder matches field names case-insensitively (docker-py sends {"replicated": {...}})
    const r = goField(body.Mode, 'Replicated');
    const g = goField(body.Mode, 'Global');
    let replicas = 1;
    if (isObj(r)) replicas = uint(r.Replicas, 'Replicas', 'ReplicatedService.Mode.Replicated') ?? 1;
    if (isObj(r) && isObj(g)) throw invalidParameter('must specify only one service mode');
    mode = isObj(g) ? { Global: {} } : { Replicated: { Replicas: replicas } };
  }
  // the engine's conversion: the runtime, then the endpoint mode
  const template = parseTaskTemplate((tt as Record<string, unknown>) ?? {});
  let endpoint: EndpointSpec | undefined;
  if (isObj(body.EndpointSpec)) endpoint = parseEndpointSpec(body.EndpointSpec);
  const nameRaw = body.Name === undefined || body.Name === null ? '' : body.Name;
  if (typeof nameRaw !== 'string') throw invalidParameter(`json: cannot unmarshal ${goType(nameRaw)} into Go struct field ServiceSpec.Name of type string`);
  const name = nameRaw || generatedName();
  if (name.length > 63 || !NAME_RE.test(name)) throw invalidParameter(rpc('InvalidArgument', 'name must be valid as a DNS name component'));
  const spec: ServiceSpec = { Name: name, Labels: labels, TaskTemplate: template, Mode: mode };
  if (isObj(body.UpdateConfig)) spec.UpdateConfig = parseUpdateConfig(body.UpdateConfig);
  const nets = body.Networks ?? (tt as Record<string, unknown> | undefined)?.Networks;
  if (Array.isArray(nets) && nets.length) {
    spec.Networks = nets.map((n) => {
      if (!isObj(n) || typeof n.Target !== 'string' || !n.Target) throw invalidParameter(rpc('InvalidArgument', 'NetworkAttachmentConfig: network target must be provided'));
      const aliases = strings(n.Aliases, 'Aliases', 'NetworkAttachmentConfig.Networks');
      return aliases?.length ? { Target: n.Target, Aliases: aliases } : { Target: n.Target };
    });
  }
  if (endpoint) spec.EndpointSpec = endpoint;
  return spec;
}

/**
 * The ports of a service's Endpoint: each port without a PublishedPort gets the lowest one from PORT_RANGE not
 * held by another service (per protocol); a given one held by another service is refused as the reference does.
 * `held` maps `proto/port` to the holding service (id and name); `self` is the service being updated (its own ports
 * are free to keep).
 */
export function assignPorts(ports: PortConfig[] | undefined, held: Map<string, { id: string; name: string }>, self?: string, previous: PortConfig[] = []): PortConfig[] {
  const taken = (proto: string, port: number): boolean => {
    const h = held.get(`${proto}/${port}`);
    return !!h && h.id !== self;
  };
  const mine = new Set<string>();
  const out = (ports ?? []).map((p) => ({ ...p }));
  for (const p of out) {
    if (p.PublishMode !== 'ingress' || !p.PublishedPort) continue;
    const h = held.get(`${p.Protocol}/${p.PublishedPort}`);
    if (h && h.id !== self) throw invalidParameter(rpc('InvalidArgument', `port '${p.PublishedPort}' is already in use by service '${h.name}' (${h.id}) as an ingress port`));
    if (mine.has(`${p.Protocol}/${p.PublishedPort}`)) throw invalidParameter(rpc('InvalidArgument', 'EndpointSpec: duplicate published ports provided'));
    mine.add(`${p.Protocol}/${p.PublishedPort}`);
  }
  for (const p of out) {
    if (p.PublishMode !== 'ingress' || p.PublishedPort) continue;
    const free = (c: number): boolean => !taken(p.Protocol, c) && !mine.has(`${p.Protocol}/${c}`);
    // an update keeps the port it assigned before for the same target
    let port = previous.find((q) => q.Protocol === p.Protocol && q.TargetPort === p.TargetPort && q.PublishedPort && free(q.PublishedPort))?.PublishedPort;
    for (let c = PORT_RANGE.min; !port && c <= PORT_RANGE.max; c++) if (free(c)) port = c;
    if (!port) throw invalidParameter(rpc('ResourceExhausted', 'no more available ports in the range'));
    mine.add(`${p.Protocol}/${port}`);
    p.PublishedPort = port;
  }
  return out;
}

function checkKeys(filters: Map<string, string[]>, accepted: string[]): void {
  for (const k of filters.keys()) if (!accepted.includes(k)) throw invalidParameter(`Invalid filter '${k}'`);
}

/** GET /services filters: id and name prefixes, label, mode. */
export function serviceFilter(filters: Map<string, string[]>): (s: ServiceRecord) => boolean {
  checkKeys(filters, ['id', 'label', 'mode', 'name']);
  const modes = filters.get('mode') ?? [];
  for (const m of modes) if (m !== 'replicated' && m !== 'global') throw invalidParameter(`Invalid filter: 'mode'='${m}'`);
  const ids = filters.get('id') ?? [];
  const names = filters.get('name') ?? [];
  const labels = filters.get('label') ?? [];
  return (s) =>
    (ids.length === 0 || ids.some((p) => s.id.startsWith(p))) &&
    (names.length === 0 || names.some((p) => s.spec.Name.startsWith(p))) &&
    (modes.length === 0 || modes.includes(s.spec.Mode.Global ? 'global' : 'replicated')) &&
    labelsMatch(s.spec.Labels, labels);
}

/** The task's name as the engine names its container: `<service>.<slot>.<id>` (global: `<service>.<node>.<id>`). */
export function taskName(t: TaskRecord): string {
  return `${t.serviceName}.${t.Slot ?? t.NodeID ?? ''}.${t.ID}`;
}

/** The create body of the container a task runs as (the engine's labels, the ContainerSpec, resources, logging). */
export function taskContainerBody(t: TaskRecord, nodeId: string): Record<string, unknown> {
  const c = t.Spec.ContainerSpec ?? { Image: '' };
  const binds: string[] = [];
  const tmpfs: Record<string, string> = {};
  const volumes: Record<string, object> = {};
  for (const m of c.Mounts ?? []) {
    const ro = m.ReadOnly ? ':ro' : '';
    if (m.Type === 'tmpfs') tmpfs[m.Target!] = '';
    else if (m.Source) binds.push(`${m.Source}:${m.Target}${ro}`);
    else volumes[m.Target!] = {};
  }
  const res = t.Spec.Resources?.Limits ?? {};
  const hostConfig: Record<string, unknown> = {
    Binds: binds,
    Tmpfs: tmpfs,
    NanoCpus: res.NanoCPUs ?? 0,
    Memory: res.MemoryBytes ?? 0,
    RestartPolicy: { Name: 'no', MaximumRetryCount: 0 },
  };
  if (t.Spec.LogDriver?.Name) hostConfig.LogConfig = { Type: t.Spec.LogDriver.Name, Config: t.Spec.LogDriver.Options ?? {} };
  const name = taskName(t);
  const body: Record<string, unknown> = {
    Image: c.Image,
    Labels: {
      ...(c.Labels ?? {}),
      'com.docker.swarm.node.id': nodeId,
      'com.docker.swarm.service.id': t.ServiceID,
      'com.docker.swarm.service.name': t.serviceName,
      'com.docker.swarm.task': '',
      'com.docker.swarm.task.id': t.ID,
      'com.docker.swarm.task.name': name,
    },
    Env: c.Env ?? [],
    Volumes: volumes,
    HostConfig: hostConfig,
  };
  if (c.Command?.length) {
    body.Entrypoint = c.Command;
    body.Cmd = c.Args ?? [];
  } else if (c.Args?.length) {
    body.Cmd = c.Args;
  }
  if (c.Dir) body.WorkingDir = c.Dir;
  if (c.User) body.User = c.User;
  if (c.Hostname) body.Hostname = c.Hostname;
  if (c.StopGracePeriod) body.StopTimeout = Math.ceil(c.StopGracePeriod / 1e9);
  return body;
}
