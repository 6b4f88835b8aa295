// Swarm mode's control plane (docs/swarm.md): this node's membership (init, join, leave), the cluster object, nodes
// and tasks, over the cluster state in etcd. The service is version-agnostic and knows nothing of HTTP; handlers
// shape what it returns with translate/response/swarm.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { conflict, invalidParameter, notAcceptable, notFound, systemError, unavailable } from '../errors';
import type { Logger } from '../log';
import { writeFileAtomic } from '../store/atomic';
import type { ClusterRecord, LocalSwarmState, NodeDescription, NodeRecord, NodeSpec, NodeView, SwarmInfo, SwarmSpec, TaskRecord, Versioned } from '../types/swarm';
import { heartbeatPeriodMs, mergeInitSpec, normalizeUpdateSpec, TLSInfoFacts } from '../translate/response/swarm';
import { checkTaskFilterKeys, nodeFilter, resolveSwarmAddrs, taskFilter } from '../translate/request/swarm';
import * as ca from './ca';
import { clientURL, EtcdMember, EtcdSupervisor, peerURL } from './etcd';
import { ClusterState } from './state';

export const NOT_MANAGER_OUTSIDE =
  'This node is not a swarm manager. Use "docker swarm init" or "docker swarm join" to connect this node to swarm and try again.';
export const NOT_MANAGER_WORKER =
  "This node is not a swarm manager. Worker nodes can't be used to view or modify cluster state. Please run this command on a manager node or promote the current node to a manager.";
export const NOT_IN_SWARM = 'This node is not part of a swarm';
export const ALREADY_IN_SWARM = 'This node is already part of a swarm. Use "docker swarm leave" to leave this swarm and join another one.';
export const LAST_MANAGER_LEAVE =
  'You are attempting to leave the swarm on a node that is participating as a manager. Removing the last manager erases all current state of the swarm. Use `--force` to ignore this message. ';

export interface ClusterDeps {
  dataRoot: string;
  logger: Logger;
  /** This node's description (hostname, platform, resources, engine version). */
  describe: () => NodeDescription;
  /** IPv4 addresses per interface name (os.networkInterfaces(), reduced). */
  interfaces: () => Record<string, string[]>;
  etcdBinary?: string;
}

export interface InitRequest {
  ListenAddr?: string;
  AdvertiseAddr?: string;
  ForceNewCluster?: boolean;
  Spec?: SwarmSpec;
}

interface Paths {
  dir: string;
  state: string;
  certs: string;
  caCert: string;
  caKey: string;
  nodeCert: string;
  nodeKey: string;
  etcdData: string;
  etcdLog: string;
  etcdPid: string;
}

function pathsOf(dataRoot: string): Paths {
  const dir = path.join(dataRoot, 'swarm');
  const certs = path.join(dir, 'certs');
  return {
    dir,
    state: path.join(dir, 'state.json'),
    certs,
    caCert: path.join(certs, 'ca.crt'),
    caKey: path.join(certs, 'ca.key'),
    nodeCert: path.join(certs, 'node.crt'),
    nodeKey: path.join(certs, 'node.key'),
    etcdData: path.join(dir, 'etcd'),
    etcdLog: path.join(dir, 'etcd.log'),
    etcdPid: path.join(dir, 'etcd.pid'),
  };
}

const nowISO = (): string => new Date().toISOString();

export class ClusterService {
  private readonly p: Paths;
  private local?: LocalSwarmState;
  private etcd?: EtcdSupervisor;
  private state?: ClusterState;
  /** One membership change (init, join, leave) at a time. */
  private busy = false;

  constructor(private readonly deps: ClusterDeps) {
    this.p = pathsOf(deps.dataRoot);
  }

  // ---- lifecycle -------------------------------------------------------------------------------------------------

  /** At daemon start: resume the membership recorded on disk (etcd re-attached or restarted), or clear a half init. */
  async start(): Promise<void> {
    let local: LocalSwarmState | undefined;
    try {
      local = JSON.parse(fs.readFileSync(this.p.state, 'utf8')) as LocalSwarmState;
    } catch {
      local = undefined;
    }
    if (!local) {
      if (fs.existsSync(this.p.dir)) {
        // An init or join that a SIGKILL cut short: nothing was committed locally; undo it.
        this.deps.logger.warn('removing an unfinished swarm set-up', { dir: this.p.dir });
        await this.memberSupervisor(undefined).stop().catch(() => undefined);
        fs.rmSync(this.p.dir, { recursive: true, force: true });
      }
      return;
    }
    this.local = local;
    try {
      await this.attach();
    } catch (err) {
      this.deps.logger.error('cannot resume swarm membership; will keep trying', { err: String(err) });
    }
  }

  /** Starts (or re-attaches to) this node's etcd member if it is a manager, connects, heartbeats. */
  private async attach(): Promise<void> {
    const local = this.local!;
    if (local.role === 'manager') {
      this.etcd = this.memberSupervisor(local);
      await this.etcd.ensure();
    }
    this.state = new ClusterState(local.etcdEndpoints, this.credentials(), this.deps.logger);
    const cluster = await this.state.cluster().catch(() => undefined);
    const hb = cluster ? heartbeatPeriodMs(cluster.value.spec) : 5000;
    this.state.startHeartbeat(local.nodeId, ttlOf(hb), local.role === 'manager');
  }

  private credentials() {
    return { ca: fs.readFileSync(this.p.caCert), cert: fs.readFileSync(this.p.nodeCert), key: fs.readFileSync(this.p.nodeKey) };
  }

  private memberSupervisor(local: LocalSwarmState | undefined): EtcdSupervisor {
    const adv = local?.advertiseAddr ?? '127.0.0.1';
    const port = Number((local?.listenAddr ?? ':2377').split(':').pop());
    const member: EtcdMember = {
      name: local?.nodeId ?? 'none',
      dataDir: this.p.etcdData,
      ip: adv,
      clientPort: port + 2,
      peerPort: port + 3,
      initialCluster: local?.etcd?.initialCluster ?? '',
      initialState: local?.etcd?.state ?? 'new',
      clusterToken: local?.clusterId ?? '',
      certs: { ca: this.p.caCert, cert: this.p.nodeCert, key: this.p.nodeKey },
      log: this.p.etcdLog,
      pidFile: this.p.etcdPid,
    };
    return new EtcdSupervisor(member, this.deps.logger, this.deps.etcdBinary);
  }

  close(): void {
    this.etcd?.close();
    this.state?.close();
  }

  private async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    if (this.busy) throw unavailable('another swarm membership change is in progress on this node');
    this.busy = true;
    try {
      return await fn();
    } finally {
      this.busy = false;
    }
  }

  // ---- membership --------------------------------------------------------------------------------------------

  async init(req: InitRequest): Promise<string> {
    if (this.local) throw unavailable(ALREADY_IN_SWARM);
    if (req.ForceNewCluster) throw invalidParameter('berth does not support ForceNewCluster');
    if (req.Spec?.EncryptionConfig?.AutoLockManagers) throw invalidParameter('berth does not support autolock');
    if (req.Spec?.CAConfig?.ExternalCAs?.length) throw invalidParameter('berth does not support external CAs');
    const addrs = resolveSwarmAddrs(req.ListenAddr, req.AdvertiseAddr, this.deps.interfaces());
    const spec = mergeInitSpec(req.Spec);
    return this.exclusive(async () => {
      if (this.local) throw unavailable(ALREADY_IN_SWARM);
      const nodeId = ca.newId();
      const clusterId = ca.newId();
      const advertiseIP = addrs.advertiseIP;
      const listenPort = addrs.listenPort;
      const local: LocalSwarmState = {
        nodeId,
        clusterId,
        role: 'manager',
        advertiseAddr: advertiseIP,
        listenAddr: `${addrs.listenIP}:${listenPort}`,
        etcdEndpoints: [clientURL(advertiseIP, listenPort + 2)],
        etcd: { initialCluster: `${nodeId}=${peerURL(advertiseIP, listenPort + 3)}`, state: 'new' },
      };
      let etcd: EtcdSupervisor | undefined;
      let state: ClusterState | undefined;
      try {
        fs.mkdirSync(this.p.certs, { recursive: true, mode: 0o700 });
        const root = await ca.createRootCA();
        const key = ca.newKey();
        const cert = await ca.signNodeCert(root, { csr: await ca.createCSR(key), nodeId, clusterId, role: 'manager', ip: advertiseIP, days: certDays(spec) });
        fs.writeFileSync(this.p.caCert, root.cert);
        fs.writeFileSync(this.p.caKey, root.key, { mode: 0o600 });
        fs.writeFileSync(this.p.nodeCert, cert);
        fs.writeFileSync(this.p.nodeKey, key, { mode: 0o600 });
        etcd = this.memberSupervisor(local);
        await etcd.ensure();
        state = new ClusterState(local.etcdEndpoints, this.credentials(), this.deps.logger);
        const now = nowISO();
        const cluster: ClusterRecord = { id: clusterId, createdAt: now, updatedAt: now, spec, workerSecret: ca.newSecret(), managerSecret: ca.newSecret(), caCert: root.cert, caKey: root.key };
        await state.putCluster(cluster, 0);
        await state.putNode(this.nodeRecord(nodeId, { Role: 'manager', Availability: 'active', Labels: {} }, advertiseIP, `${advertiseIP}:${addrs.advertisePort}`, listenPort, now), 0);
        await writeFileAtomic(this.p.state, JSON.stringify(local));
        this.local = local;
        this.etcd = etcd;
        this.state = state;
        state.startHeartbeat(nodeId, ttlOf(heartbeatPeriodMs(spec)), true);
        return nodeId;
      } catch (err) {
        state?.close();
        await etcd?.stop().catch(() => undefined);
        fs.rmSync(this.p.dir, { recursive: true, force: true });
        throw err;
      }
    });
  }

  private nodeRecord(id: string, spec: NodeSpec, ip: string, managerAddr: string, listenPort: number, now: string): NodeRecord {
    return {
      id,
      createdAt: now,
      updatedAt: now,
      spec,
      description: this.deps.describe(),
      addr: ip,
      managerAddr,
      peerURL: peerURL(ip, listenPort + 3),
      clientURL: clientURL(ip, listenPort + 2),
    };
  }

  async join(_req: { ListenAddr?: string; AdvertiseAddr?: string; RemoteAddrs?: string[]; JoinToken?: string }): Promise<void> {
    if (this.local) throw unavailable(ALREADY_IN_SWARM);
    throw unavailable('joining a swarm is not available yet in this build of berth');
  }

  async leave(force: boolean): Promise<void> {
    if (!this.local) throw unavailable(NOT_IN_SWARM);
    return this.exclusive(async () => {
      const local = this.local;
      if (!local) throw unavailable(NOT_IN_SWARM);
      const state = this.state!;
      if (local.role === 'manager') {
        let managers = 1;
        try {
          managers = (await state.nodes()).filter((n) => n.value.spec.Role === 'manager').length;
        } catch (err) {
          if (!force) throw err;
        }
        if (managers <= 1 && !force) throw unavailable(LAST_MANAGER_LEAVE);
        if (managers > 1) {
          // Leave the etcd membership first (a member removed by itself stops serving), then forget the node.
          await state.deleteNode(local.nodeId).catch((err) => {
            if (!force) throw err;
          });
          await state.memberRemoveByPeer(peerURL(local.advertiseAddr, Number(local.listenAddr.split(':').pop()) + 3)).catch((err) => {
            if (!force) throw err;
          });
        }
      } else {
        await state.stopHeartbeat();
      }
      await state.stopHeartbeat().catch(() => undefined);
      state.close();
      await this.etcd?.stop();
      this.etcd = undefined;
      this.state = undefined;
      this.local = undefined;
      fs.rmSync(this.p.dir, { recursive: true, force: true });
    });
  }

  // ---- reads -------------------------------------------------------------------------------------------------

  /** The cluster state, for a manager; the reference's 406/503 answers otherwise. */
  private manager(): ClusterState {
    if (!this.local) throw notAcceptable(NOT_MANAGER_OUTSIDE);
    if (this.local.role !== 'manager') throw unavailable(NOT_MANAGER_WORKER);
    if (!this.state) throw unavailable('This node is not a swarm manager. Manager is being prepared or has trouble connecting to the cluster.');
    return this.state;
  }

  private async clusterRecord(state: ClusterState): Promise<Versioned<ClusterRecord>> {
    const c = await state.cluster();
    if (!c) throw systemError('the swarm has no cluster object');
    return c;
  }

  tlsFacts(c: ClusterRecord): TLSInfoFacts {
    const t = ca.tlsInfoOf(c.caCert);
    return { trustRoot: c.caCert, subject: t.subject, publicKey: t.publicKey };
  }

  async inspect(): Promise<{ cluster: Versioned<ClusterRecord>; tls: TLSInfoFacts; tokens: { worker: string; manager: string } }> {
    const c = await this.clusterRecord(this.manager());
    return { cluster: c, tls: this.tlsFacts(c.value), tokens: { worker: ca.joinToken(c.value.caCert, c.value.workerSecret), manager: ca.joinToken(c.value.caCert, c.value.managerSecret) } };
  }

  async update(version: number, spec: SwarmSpec | undefined, rotate: { worker: boolean; manager: boolean }): Promise<void> {
    const state = this.manager();
    const c = await this.clusterRecord(state);
    if (c.version !== version) throw conflict('rpc error: code = Unknown desc = update out of sequence');
    if (spec?.EncryptionConfig?.AutoLockManagers) throw invalidParameter('berth does not support autolock');
    const next: ClusterRecord = {
      ...c.value,
      spec: normalizeUpdateSpec(spec),
      updatedAt: nowISO(),
      workerSecret: rotate.worker ? ca.newSecret() : c.value.workerSecret,
      managerSecret: rotate.manager ? ca.newSecret() : c.value.managerSecret,
    };
    await state.putCluster(next, version);
  }

  private async views(state: ClusterState): Promise<NodeView[]> {
    const [nodes, alive, leader, cluster] = await Promise.all([state.nodes(), state.alive(), state.leader(), this.clusterRecord(state)]);
    return nodes.map((n) => ({ node: n, ready: alive.has(n.value.id), leader: leader === n.value.id, caCert: cluster.value.caCert }));
  }

  async nodes(filters: Map<string, string[]>): Promise<{ views: NodeView[]; tls: TLSInfoFacts }> {
    const match = nodeFilter(filters);
    const state = this.manager();
    const views = await this.views(state);
    const tls = this.tlsFacts((await this.clusterRecord(state)).value);
    return { views: views.filter((v) => match(v.node.value)).sort((a, b) => a.node.value.createdAt.localeCompare(b.node.value.createdAt)), tls };
  }

  /** A node by id, then name (hostname), then id prefix — the reference's lookup order. */
  private findView(views: NodeView[], ref: string): NodeView {
    const byId = views.find((v) => v.node.value.id === ref);
    if (byId) return byId;
    const byName = views.filter((v) => (v.node.value.spec.Name || v.node.value.description.hostname) === ref);
    if (byName.length === 1) return byName[0];
    if (byName.length > 1) throw invalidParameter(`node ${ref} is ambiguous (${byName.length} matches found)`);
    const byPrefix = views.filter((v) => v.node.value.id.startsWith(ref));
    if (byPrefix.length === 1) return byPrefix[0];
    if (byPrefix.length > 1) throw invalidParameter(`node ${ref} is ambiguous (${byPrefix.length} matches found)`);
    throw notFound(`node ${ref} not found`);
  }

  async node(ref: string): Promise<{ view: NodeView; tls: TLSInfoFacts }> {
    const state = this.manager();
    const view = this.findView(await this.views(state), ref);
    return { view, tls: this.tlsFacts((await this.clusterRecord(state)).value) };
  }

  async updateNode(ref: string, version: number, spec: NodeSpec): Promise<void> {
    const state = this.manager();
    const views = await this.views(state);
    const v = this.findView(views, ref);
    const cur = v.node.value;
    if (v.node.version !== version) throw conflict('rpc error: code = Unknown desc = update out of sequence');
    if (cur.spec.Role === 'manager' && spec.Role === 'worker') {
      const managers = views.filter((x) => x.node.value.spec.Role === 'manager');
      if (managers.length <= 1) throw invalidParameter('rpc error: code = FailedPrecondition desc = attempting to demote the last manager of the swarm');
    }
    await state.putNode({ ...cur, spec: { ...spec, Labels: spec.Labels ?? {} }, updatedAt: nowISO() }, version);
  }

  async removeNode(ref: string, force: boolean): Promise<void> {
    const state = this.manager();
    const v = this.findView(await this.views(state), ref);
    const n = v.node.value;
    if (n.spec.Role === 'manager') {
      throw invalidParameter(`rpc error: code = FailedPrecondition desc = node ${n.id} is a cluster manager and is a member of the raft cluster. It must be demoted to worker before removal`);
    }
    if (v.ready && !force) {
      throw invalidParameter(`rpc error: code = FailedPrecondition desc = node ${n.id} is not down and can't be removed`);
    }
    await state.deleteNode(n.id);
  }

  async tasks(filters: Map<string, string[]>): Promise<Versioned<TaskRecord>[]> {
    checkTaskFilterKeys(filters);
    const state = this.manager();
    const all = await state.tasks();
    // Services come with part 2: until then every service filter names an unknown service.
    const services = filters.get('service') ?? [];
    if (services.length) throw notFound(`service ${services[0]} not found`);
    const nodeRefs = filters.get('node') ?? [];
    const views = nodeRefs.length ? await this.views(state) : [];
    const nodeIds = nodeRefs.map((r) => this.findView(views, r).node.value.id);
    const match = taskFilter({ filters, serviceIds: [], nodeIds });
    return all.filter((t) => match(t.value));
  }

  async task(id: string): Promise<Versioned<TaskRecord>> {
    const all = await this.manager().tasks();
    const t = all.find((x) => x.value.ID === id) ?? all.find((x) => x.value.ID.startsWith(id));
    if (!t) throw notFound(`task ${id} not found`);
    return t;
  }

  /** GET /info's Swarm section (never throws: an unreachable cluster shows in Error). */
  async info(): Promise<{ info: SwarmInfo; tls?: TLSInfoFacts } | undefined> {
    const local = this.local;
    if (!local) return undefined;
    const base: SwarmInfo = { nodeId: local.nodeId, nodeAddr: local.advertiseAddr, state: 'active', controlAvailable: local.role === 'manager', error: '', remoteManagers: [] };
    if (!this.state) return { info: { ...base, state: 'pending' } };
    try {
      const nodes = await this.state.nodes();
      const managers = nodes.filter((n) => n.value.spec.Role === 'manager');
      base.remoteManagers = managers.map((m) => ({ NodeID: m.value.id, Addr: m.value.managerAddr })).sort((a, b) => a.NodeID.localeCompare(b.NodeID));
      if (local.role !== 'manager') return { info: base };
      const cluster = await this.clusterRecord(this.state);
      return { info: { ...base, nodes: nodes.length, managers: managers.length, cluster }, tls: this.tlsFacts(cluster.value) };
    } catch (err) {
      return { info: { ...base, error: (err as Error).message } };
    }
  }
}

/** The heartbeat lease TTL in seconds: two periods, at least 2 s (etcd's floor with a 1 s election timeout). */
function ttlOf(periodMs: number): number {
  return Math.max(2, Math.ceil((2 * periodMs) / 1000));
}

function certDays(spec: SwarmSpec): number {
  const ns = spec.CAConfig?.NodeCertExpiry ?? 7_776_000_000_000_000;
  return Math.max(1, Math.round(ns / 86_400e9));
}
