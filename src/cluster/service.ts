// Swarm mode's control plane (docs/swarm.md): this node's membership (init, join, leave), the cluster object, nodes
// and tasks, over the cluster state in etcd. The service is version-agnostic and knows nothing of HTTP; handlers
// shape what it returns with translate/response/swarm.
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { conflict, invalidParameter, isKind, notAcceptable, notFound, systemError, unavailable } from '../errors';
import type { Logger } from '../log';
import { writeFileAtomic } from '../store/atomic';
import type { ClusterRecord, EtcdRaft, LocalSwarmState, NodeDescription, NodeRecord, NodeRole, NodeSpec, NodeView, SwarmInfo, SwarmSpec, TaskRecord, Versioned } from '../types/swarm';
import { etcdRaftOf, heartbeatPeriodMs, mergeInitSpec, normalizeUpdateSpec, TLSInfoFacts } from '../translate/response/swarm';
import { checkTaskFilterKeys, nodeFilter, resolveSwarmAddrs, splitHostPort, taskFilter } from '../translate/request/swarm';
import * as ca from './ca';
import { clientURL, EtcdMember, EtcdSupervisor, peerURL } from './etcd';
import { JoinRequest, JoinResponse, JoinServer, requestJoin, requestRenewal } from './join';
import { ClusterState, EtcdMemberInfo, initialClusterOf } from './state';
import { findService } from './services';

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
  /** The interfaces that are devices (not virtual links): the only ones a default advertise address comes from. */
  devices?: () => ReadonlySet<string>;
  etcdBinary?: string;
  /** `--cluster-store`: an existing etcd's client URLs; a swarm initialised here lives there. */
  store?: string[];
  /** The shortest CAConfig.NodeCertExpiry accepted, in seconds: the reference's 1 h unless a test shortens it. */
  minCertExpirySec?: number;
  /** After this node left (or was removed from) the swarm: its task containers go, as the engine's do. */
  left?: () => Promise<void>;
}

export interface JoinBody {
  ListenAddr?: string;
  AdvertiseAddr?: string;
  RemoteAddrs?: string[];
  JoinToken?: string;
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
  private joinServer?: JoinServer;
  private reconcileTimer?: NodeJS.Timeout;
  private reconciling = false;
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
    const resume = (): void => {
      this.attach().catch((err) => {
        this.deps.logger.error('cannot resume swarm membership; trying again in 2 s', { err: String(err) });
        if (this.local === local) setTimeout(resume, 2000).unref();
      });
    };
    await this.attach().catch((err) => {
      this.deps.logger.error('cannot resume swarm membership; trying again in 2 s', { err: String(err) });
      setTimeout(resume, 2000).unref();
    });
  }

  /** Starts (or re-attaches to) this node's etcd member if it is a manager, connects, heartbeats. */
  private async attach(): Promise<void> {
    const local = this.local!;
    if (local.role === 'manager' && !local.store) {
      this.etcd = this.memberSupervisor(local);
      await this.etcd.ensure();
    }
    this.connect(local.etcdEndpoints, this.heartbeatMs);
    const cluster = await this.state!.cluster().catch(() => undefined);
    if (cluster) this.restartHeartbeat(heartbeatPeriodMs(cluster.value.spec));
    if (local.role === 'manager') await this.serveJoins();
    this.startReconcile();
  }

  /** The etcd endpoints the running client was built with (sorted). */
  private clientEndpoints: string[] = [];

  /** The heartbeat period in force on this node (the cluster's Dispatcher.HeartbeatPeriod when last read). */
  private heartbeatMs = 5000;

  /** A client of the given etcd endpoints, heartbeating (and campaigning, for a manager). */
  private connect(endpoints: string[], periodMs: number): void {
    const local = this.local!;
    const old = this.state;
    this.heartbeatMs = periodMs;
    this.clientEndpoints = [...endpoints].sort();
    this.state = new ClusterState(endpoints, this.credentials(local), this.deps.logger);
    old?.retire();
    const beating = this.state.startHeartbeat(local.nodeId, ttlOf(periodMs), local.role === 'manager', old?.beating);
    if (old) {
      // The old lease ends once the new one holds the alive key (the node never shows down in between); calls
      // under way on the old client finish first.
      void beating.then(() => old.stopHeartbeat()).catch(() => undefined);
      setTimeout(() => old.close(), 10_000).unref();
    }
  }

  /** A new Dispatcher.HeartbeatPeriod: a lease of the new TTL (the candidacy moves with it). */
  private restartHeartbeat(periodMs: number): void {
    if (periodMs === this.heartbeatMs || !this.local || !this.state) return;
    this.connect(this.local.etcdEndpoints, periodMs);
  }

  private async serveJoins(): Promise<void> {
    const local = this.local!;
    if (this.joinServer) return;
    const [ip, port] = [local.listenAddr.slice(0, local.listenAddr.lastIndexOf(':')), Number(local.listenAddr.split(':').pop())];
    const server = new JoinServer((r) => this.acceptJoin(r), (id, csr) => this.acceptRenewal(id, csr), this.deps.logger);
    await server.listen(ip, port, { cert: fs.readFileSync(this.p.nodeCert, 'utf8'), key: fs.readFileSync(this.p.nodeKey, 'utf8'), ca: fs.readFileSync(this.p.caCert, 'utf8') });
    this.joinServer = server;
  }

  private async stopServingJoins(): Promise<void> {
    const s = this.joinServer;
    this.joinServer = undefined;
    await s?.close();
  }

  /**
   * Every second: follow this node's record (a promotion starts an etcd member here, a demotion stops it, a removal
   * forgets the swarm), keep the list of etcd endpoints current, and the heartbeat at the cluster's period.
   */
  private startReconcile(): void {
    if (this.reconcileTimer) return;
    this.reconcileTimer = setInterval(() => {
      if (this.reconciling || this.busy) return;
      this.reconciling = true;
      this.reconcile()
        .then(
          () => {
            this.failedRounds = 0;
            this.state?.sawLeader();
          },
          (err) => {
            this.deps.logger.debug('swarm reconcile', { err: String(err), cause: String((err as { cause?: unknown }).cause ?? '') });
            this.failedRounds++;
            this.reachOtherManagers();
          },
        )
        .finally(() => (this.reconciling = false));
    }, 1000);
    this.reconcileTimer.unref();
  }

  private failedRounds = 0;

  /**
   * A manager's client keeps the endpoints it was built with (rebuilding it moves its election candidacy to the back
   * of the queue). When the cluster has been unreadable through them for 3 rounds and the managers last seen are
   * others (its own member removed and stopped, say, by a demotion it has not read yet), it is rebuilt on those.
   */
  private reachOtherManagers(): void {
    const local = this.local;
    if (!local || this.failedRounds < 3) return;
    const known = [...local.etcdEndpoints].sort();
    if (!known.length || JSON.stringify(known) === JSON.stringify(this.clientEndpoints)) return;
    this.deps.logger.warn('the cluster is unreachable through this client: trying the managers last seen', { endpoints: known });
    this.failedRounds = 0;
    this.connect(known, this.heartbeatMs);
  }

  private stopReconcile(): void {
    if (this.reconcileTimer) clearInterval(this.reconcileTimer);
    this.reconcileTimer = undefined;
  }

  private async reconcile(): Promise<void> {
    const local = this.local;
    const state = this.state;
    if (!local || !state) return;
    const [me, cluster, members] = await Promise.all([state.node(local.nodeId), state.cluster(), state.members()]);
    if (!cluster) return;
    if (!me) {
      this.deps.logger.warn('this node was removed from the swarm');
      await this.forget();
      return;
    }
    const role = me.value.spec.Role;
    await this.renewCertIfDue(me.value, cluster.value);
    if (local.store) {
      // in an existing etcd: a role change moves no membership
      if (role === 'manager' && local.role === 'worker') await this.becomeStoreManager();
      else if (role === 'worker' && local.role === 'manager') await this.becomeWorker();
      this.restartHeartbeat(heartbeatPeriodMs(cluster.value.spec));
      return;
    }
    const ownPeer = peerURL(local.advertiseAddr, portOf(local.listenAddr) + 3);
    const ownMember = members.find((m) => m.peerURLs.includes(ownPeer));
    if (role === 'manager' && local.role === 'worker' && me.value.etcdInitialCluster) {
      // The promoting manager writes the record before it adds the member: start only once the member exists
      // (started before, etcd refuses the cluster it finds as "member count is unequal").
      if (ownMember) await this.becomeManager(members, etcdRaftOf(cluster.value.spec));
    } else if (local.role === 'manager' && (role === 'worker' || !ownMember)) {
      // Demoted, or this member removed under us (demoted and promoted again before this node looked: the new
      // member is another one, started afresh on the next round).
      await this.becomeWorker();
    }
    // Spec.Raft changed by an update: the member runs with it from its next start (etcd reads these at start only).
    const raft = etcdRaftOf(cluster.value.spec);
    if (this.local?.role === 'manager' && this.local.etcd && JSON.stringify(this.local.etcd.raft) !== JSON.stringify(raft)) {
      this.local.etcd = { ...this.local.etcd, raft };
      await this.saveLocal();
    }
    // The managers' etcd endpoints, kept for the next start.
    const endpoints = members.flatMap((m) => m.clientURLs).sort();
    if (this.local && endpoints.length && JSON.stringify(endpoints) !== JSON.stringify([...this.local.etcdEndpoints].sort())) {
      this.local.etcdEndpoints = endpoints;
      await this.saveLocal();
    }
    // A worker's client follows the managers' endpoints (a manager's always has its own member): one built on
    // managers that were all demoted or removed since would lose the cluster.
    if (this.local?.role === 'worker' && endpoints.length && JSON.stringify(endpoints) !== JSON.stringify(this.clientEndpoints)) {
      this.deps.logger.info('the managers changed: the etcd client follows', { endpoints });
      this.connect(endpoints, this.heartbeatMs);
    }
    this.restartHeartbeat(heartbeatPeriodMs(cluster.value.spec));
  }

  private async saveLocal(): Promise<void> {
    await writeFileAtomic(this.p.state, JSON.stringify(this.local));
  }

  /**
   * Promoted: start an etcd member here (the promoting manager added it), campaign, serve joins. The node counts as
   * a manager only once its member serves; a member that fails to start is stopped and its data removed, and the
   * next round tries again.
   */
  private async becomeManager(members: EtcdMemberInfo[], raft: EtcdRaft): Promise<void> {
    const local = this.local!;
    this.deps.logger.info('promoted to manager: starting an etcd member');
    // a member a SIGKILLed berth was starting (its pid file) is not this one: stopped, its data gone
    await this.memberSupervisor(undefined).stop();
    fs.rmSync(this.p.etcdData, { recursive: true, force: true });
    const own = clientURL(local.advertiseAddr, portOf(local.listenAddr) + 2);
    const next: LocalSwarmState = {
      ...local,
      role: 'manager',
      etcd: { initialCluster: initialClusterOf(members, local.nodeId, peerURL(local.advertiseAddr, portOf(local.listenAddr) + 3)), state: 'existing', raft },
      etcdEndpoints: local.etcdEndpoints.includes(own) ? local.etcdEndpoints : [...local.etcdEndpoints, own],
    };
    const etcd = this.memberSupervisor(next);
    try {
      await etcd.ensure(30_000);
    } catch (err) {
      await etcd.stop().catch(() => undefined);
      fs.rmSync(this.p.etcdData, { recursive: true, force: true });
      throw err;
    }
    this.etcd = etcd;
    this.local = next;
    await this.saveLocal();
    this.connect(next.etcdEndpoints, this.heartbeatMs);
    await this.serveJoins();
  }

  /** Promoted in a swarm that lives in an existing etcd: campaign and serve joins (no member to start). */
  private async becomeStoreManager(): Promise<void> {
    this.deps.logger.info('promoted to manager');
    this.local = { ...this.local!, role: 'manager' };
    await this.saveLocal();
    this.connect(this.local.etcdEndpoints, this.heartbeatMs);
    await this.serveJoins();
  }

  /** Demoted: the demoting manager removed the etcd member; stop it and go on as a client. */
  private async becomeWorker(): Promise<void> {
    const local = this.local!;
    this.deps.logger.info('demoted to worker: stopping the etcd member');
    await this.stopServingJoins();
    await this.etcd?.stop();
    this.etcd = undefined;
    fs.rmSync(this.p.etcdData, { recursive: true, force: true });
    const own = clientURL(local.advertiseAddr, portOf(local.listenAddr) + 2);
    local.role = 'worker';
    local.etcd = undefined;
    local.etcdEndpoints = local.etcdEndpoints.filter((e) => e !== own);
    await this.saveLocal();
    this.connect(local.etcdEndpoints, this.heartbeatMs);
  }

  /** This node's swarm state gone: nothing of it left on disk, no etcd, no heartbeat. */
  private async forget(): Promise<void> {
    this.stopReconcile();
    await this.stopServingJoins();
    await this.state?.stopHeartbeat().catch(() => undefined);
    this.state?.close();
    await this.etcd?.stop();
    this.etcd = undefined;
    this.state = undefined;
    this.local = undefined;
    fs.rmSync(this.p.dir, { recursive: true, force: true });
    await this.deps.left?.().catch((err) => this.deps.logger.warn('cannot remove the task containers of the swarm left', { err: String(err) }));
  }

  private credentials(local: LocalSwarmState | undefined) {
    if (local?.store) return undefined;
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
      raft: local?.etcd?.raft ?? etcdRaftOf({}),
      clusterToken: local?.clusterId ?? '',
      certs: { ca: this.p.caCert, cert: this.p.nodeCert, key: this.p.nodeKey },
      log: this.p.etcdLog,
      pidFile: this.p.etcdPid,
    };
    return new EtcdSupervisor(member, this.deps.logger, this.deps.etcdBinary);
  }

  close(): void {
    this.stopReconcile();
    void this.joinServer?.close();
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
    const addrs = resolveSwarmAddrs(req.ListenAddr, req.AdvertiseAddr, this.deps.interfaces(), this.deps.devices?.());
    const spec = mergeInitSpec(req.Spec);
    this.checkCertExpiry(spec);
    return this.exclusive(async () => {
      if (this.local) throw unavailable(ALREADY_IN_SWARM);
      const nodeId = ca.newId();
      const clusterId = ca.newId();
      const advertiseIP = addrs.advertiseIP;
      const listenPort = addrs.listenPort;
      const store = this.deps.store;
      const local: LocalSwarmState = {
        nodeId,
        clusterId,
        role: 'manager',
        advertiseAddr: advertiseIP,
        listenAddr: `${addrs.listenIP}:${listenPort}`,
        etcdEndpoints: store ?? [clientURL(advertiseIP, listenPort + 2)],
        etcd: store ? undefined : { initialCluster: `${nodeId}=${peerURL(advertiseIP, listenPort + 3)}`, state: 'new', raft: etcdRaftOf(spec) },
        store,
      };
      let etcd: EtcdSupervisor | undefined;
      let state: ClusterState | undefined;
      try {
        fs.mkdirSync(this.p.certs, { recursive: true, mode: 0o700 });
        const root = await ca.createRootCA();
        const key = ca.newKey();
        const cert = await ca.signNodeCert(root, { csr: await ca.createCSR(key), nodeId, clusterId, role: 'manager', ip: advertiseIP, expirySec: certExpirySec(spec) });
        fs.writeFileSync(this.p.caCert, root.cert);
        fs.writeFileSync(this.p.caKey, root.key, { mode: 0o600 });
        fs.writeFileSync(this.p.nodeCert, cert);
        fs.writeFileSync(this.p.nodeKey, key, { mode: 0o600 });
        if (!store) {
          etcd = this.memberSupervisor(local);
          await etcd.ensure();
        }
        state = new ClusterState(local.etcdEndpoints, this.credentials(local), this.deps.logger);
        const there = store ? await state.cluster() : undefined;
        if (there) throw unavailable(`the cluster store already holds a swarm (cluster ${there.value.id}): join it, or use another store`);
        const now = nowISO();
        const cluster: ClusterRecord = { id: clusterId, createdAt: now, updatedAt: now, spec, workerSecret: ca.newSecret(), managerSecret: ca.newSecret(), caCert: root.cert, caKey: root.key };
        await state.putCluster(cluster, 0);
        await state.putNode(this.nodeRecord(nodeId, { Role: 'manager', Availability: 'active', Labels: {} }, this.deps.describe(), advertiseIP, `${advertiseIP}:${addrs.advertisePort}`, listenPort, now), 0);
        await writeFileAtomic(this.p.state, JSON.stringify(local));
        this.local = local;
        this.etcd = etcd;
        state.close();
        this.connect(local.etcdEndpoints, heartbeatPeriodMs(spec));
        await this.serveJoins();
        this.startReconcile();
        return nodeId;
      } catch (err) {
        state?.close();
        await this.stopServingJoins();
        this.state?.close();
        this.state = undefined;
        this.local = undefined;
        this.etcd = undefined;
        await etcd?.stop().catch(() => undefined);
        fs.rmSync(this.p.dir, { recursive: true, force: true });
        throw err;
      }
    });
  }

  private nodeRecord(id: string, spec: NodeSpec, description: NodeDescription, ip: string, managerAddr: string, listenPort: number, now: string): NodeRecord {
    return {
      id,
      createdAt: now,
      updatedAt: now,
      spec,
      description,
      addr: ip,
      managerAddr,
      peerURL: peerURL(ip, listenPort + 3),
      clientURL: clientURL(ip, listenPort + 2),
    };
  }

  async join(req: JoinBody): Promise<void> {
    if (this.local) throw unavailable(ALREADY_IN_SWARM);
    const remotes = (req.RemoteAddrs ?? []).filter((r) => r);
    if (remotes.length === 0) throw invalidParameter('at least 1 RemoteAddr is required to join');
    const token = ca.parseJoinToken(String(req.JoinToken ?? ''));
    const addrs = resolveSwarmAddrs(req.ListenAddr, req.AdvertiseAddr, this.deps.interfaces(), this.deps.devices?.());
    return this.exclusive(async () => {
      if (this.local) throw unavailable(ALREADY_IN_SWARM);
      const key = ca.newKey();
      const ask: JoinRequest = {
        secret: token.secret,
        csr: await ca.createCSR(key),
        advertiseIP: addrs.advertiseIP,
        advertisePort: addrs.advertisePort,
        listenPort: addrs.listenPort,
        description: this.deps.describe(),
      };
      const remote = splitHostPort(remotes[0], 2377);
      const got: JoinResponse = await requestJoin(remote, token.digest, ca.caDigest, ask);
      const local: LocalSwarmState = {
        nodeId: got.nodeId,
        clusterId: got.clusterId,
        role: got.role,
        advertiseAddr: addrs.advertiseIP,
        listenAddr: `${addrs.listenIP}:${addrs.listenPort}`,
        etcdEndpoints: got.etcdEndpoints,
        etcd: got.initialCluster ? { initialCluster: got.initialCluster, state: 'existing', raft: got.raft } : undefined,
        store: got.store,
      };
      try {
        fs.mkdirSync(this.p.certs, { recursive: true, mode: 0o700 });
        fs.writeFileSync(this.p.caCert, got.caCert);
        fs.writeFileSync(this.p.nodeCert, got.cert);
        fs.writeFileSync(this.p.nodeKey, key, { mode: 0o600 });
        this.local = local;
        await this.attach();
        await this.saveLocal();
      } catch (err) {
        this.stopReconcile();
        await this.stopServingJoins();
        this.state?.close();
        await this.etcd?.stop().catch(() => undefined);
        this.state = undefined;
        this.etcd = undefined;
        this.local = undefined;
        fs.rmSync(this.p.dir, { recursive: true, force: true });
        throw err;
      }
    });
  }

  /**
   * A manager's side of a join: the secret decides the role; the node is recorded before a manager's etcd member
   * is added (adding it to a one-member cluster takes the quorum until the new member starts).
   */
  async acceptJoin(r: JoinRequest): Promise<JoinResponse> {
    const state = this.manager();
    const c = await this.clusterRecord(state);
    const role = ca.sameSecret(String(r.secret), c.value.managerSecret) ? 'manager' : ca.sameSecret(String(r.secret), c.value.workerSecret) ? 'worker' : undefined;
    if (!role) throw invalidParameter('rpc error: code = InvalidArgument desc = A valid join token is necessary to join this cluster');
    const ip = String(r.advertiseIP);
    if (!/^\d+\.\d+\.\d+\.\d+$/.test(ip)) throw invalidParameter('invalid advertise address');
    const nodeId = ca.newId();
    const cert = await ca.signNodeCert({ cert: c.value.caCert, key: c.value.caKey }, { csr: String(r.csr), nodeId, clusterId: c.value.id, role, ip, expirySec: certExpirySec(c.value.spec) });
    const now = nowISO();
    const rec = this.nodeRecord(nodeId, { Role: role, Availability: 'active', Labels: {} }, r.description, ip, `${ip}:${Number(r.advertisePort)}`, Number(r.listenPort), now);
    const members = await state.members();
    let initialCluster: string | undefined;
    if (role === 'manager') {
      initialCluster = initialClusterOf(members, nodeId, rec.peerURL);
      rec.etcdInitialCluster = initialCluster;
    }
    const store = this.local?.store;
    if (store) {
      rec.etcdInitialCluster = role === 'manager' ? 'store' : undefined;
      await state.putNode(rec, 0);
      return { nodeId, clusterId: c.value.id, role, cert, caCert: c.value.caCert, etcdEndpoints: store, store };
    }
    await state.putNode(rec, 0);
    if (role === 'manager') {
      try {
        await state.memberAdd(rec.peerURL);
      } catch (err) {
        await state.deleteNode(nodeId).catch(() => undefined);
        throw err;
      }
    }
    const endpoints = members.flatMap((m) => m.clientURLs);
    const raft = role === 'manager' ? etcdRaftOf(c.value.spec) : undefined;
    return { nodeId, clusterId: c.value.id, role, cert, caCert: c.value.caCert, etcdEndpoints: role === 'manager' ? [...endpoints, rec.clientURL] : endpoints, initialCluster, raft };
  }

  async leave(force: boolean): Promise<void> {
    if (!this.local) throw unavailable(NOT_IN_SWARM);
    return this.exclusive(async () => {
      const local = this.local;
      if (!local) throw unavailable(NOT_IN_SWARM);
      const state = this.state;
      if (local.role === 'manager' && state) {
        let views: NodeView[] = [];
        let known = true;
        try {
          views = await this.views(state);
        } catch (err) {
          if (!force) throw err;
          known = false;
        }
        const managers = views.filter((v) => v.node.value.spec.Role === 'manager');
        const reachable = Math.max(1, managers.filter((v) => v.ready).length);
        const unreachable = managers.length - managers.filter((v) => v.ready).length;
        if (!force) {
          let msg = 'You are attempting to leave the swarm on a node that is participating as a manager. ';
          if (reachable - 2 <= unreachable) {
            if (reachable === 1 && unreachable === 0) throw unavailable(LAST_MANAGER_LEAVE);
            msg += `Removing this node leaves ${reachable - 1} managers out of ${reachable + unreachable}. Without a Raft quorum your swarm will be inaccessible. `;
          }
          msg += 'The only way to restore a swarm that has lost consensus is to reinitialize it with `--force-new-cluster`. Use `--force` to suppress this message.';
          throw unavailable(msg);
        }
        // With other managers (or when they could not be read): out of the etcd membership; the node stays listed
        // (down, as a worker) until `docker node rm`. The record first, while this node's member still serves
        // (a removed member stops itself, and the client may be talking to it); the member is no longer
        // restarted by its supervisor from here on.
        if (local.store && known && managers.length <= 1) {
          // the last manager of a swarm in an existing etcd: its state is erased there
          await state.erase().catch((err) => this.deps.logger.warn('cannot erase the swarm from the cluster store', { err: String(err) }));
        } else if (local.store) {
          await this.recordLeftManager(state, local.nodeId).catch((err) => this.deps.logger.warn('cannot record the leaving manager as a worker', { err: String(err) }));
        } else if (!known || managers.length > 1) {
          this.etcd?.close();
          await this.recordLeftManager(state, local.nodeId).catch((err) => this.deps.logger.warn('cannot record the leaving manager as a worker', { err: String(err) }));
          await state.memberRemoveByPeer(peerURL(local.advertiseAddr, portOf(local.listenAddr) + 3)).catch((err) => this.deps.logger.warn('cannot remove this etcd member', { err: String(err) }));
        }
      }
      await this.forget();
    });
  }

  /** A manager that leaves is recorded as a worker (a concurrent write of its record is read again, twice). */
  private async recordLeftManager(state: ClusterState, id: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const me = await state.node(id);
      if (!me) return;
      try {
        await state.putNode({ ...me.value, spec: { ...me.value.spec, Role: 'worker' }, etcdInitialCluster: undefined, updatedAt: nowISO() }, me.version);
        return;
      } catch (err) {
        if (!isKind(err, 'Conflict') || attempt >= 2) throw err;
      }
    }
  }

  // ---- node certificates --------------------------------------------------------------------------------------

  private checkCertExpiry(spec: SwarmSpec): void {
    const ns = spec.CAConfig?.NodeCertExpiry;
    const min = this.deps.minCertExpirySec ?? 3600;
    if (ns && ns < min * 1e9) throw invalidParameter(`rpc error: code = InvalidArgument desc = minimum certificate expiry time is: ${goDuration(min)}`);
  }

  private renewing = false;

  /**
   * A node certificate past half its lifetime is renewed (same key, a new certificate of the cluster's current
   * CAConfig.NodeCertExpiry): a manager signs it with the cluster's CA, a worker asks a manager's cluster endpoint,
   * showing its current certificate. The new one is written in place (etcd reads its files at each TLS handshake),
   * the cluster endpoint presents it, and the etcd client is rebuilt with it.
   */
  private async renewCertIfDue(me: NodeRecord, cluster: ClusterRecord): Promise<void> {
    if (this.renewing) return;
    const cert = new crypto.X509Certificate(fs.readFileSync(this.p.nodeCert));
    const from = Date.parse(cert.validFrom);
    const to = Date.parse(cert.validTo);
    if (Date.now() < from + (to - from) / 2) return;
    this.renewing = true;
    try {
      const key = fs.readFileSync(this.p.nodeKey, 'utf8');
      const csr = await ca.createCSR(key);
      let renewed: string;
      if (this.local?.role === 'manager') {
        renewed = await this.signRenewal(me, cluster, csr);
      } else {
        renewed = await this.askRenewal(csr, key);
      }
      await writeFileAtomic(this.p.nodeCert, renewed);
      this.deps.logger.info('node certificate renewed', { validTo: new crypto.X509Certificate(renewed).validTo });
      this.joinServer?.setCertificate({ cert: renewed, key, ca: fs.readFileSync(this.p.caCert, 'utf8') });
      if (this.local) this.connect(this.clientEndpoints, this.heartbeatMs);
    } finally {
      this.renewing = false;
    }
  }

  private signRenewal(n: NodeRecord, cluster: ClusterRecord, csr: string): Promise<string> {
    return ca.signNodeCert({ cert: cluster.caCert, key: cluster.caKey }, { csr, nodeId: n.id, clusterId: cluster.id, role: n.spec.Role, ip: n.addr, expirySec: certExpirySec(cluster.spec) });
  }

  /** A worker's renewal: each manager's cluster endpoint in turn. */
  private async askRenewal(csr: string, key: string): Promise<string> {
    const managers = (await this.state!.nodes()).filter((n) => n.value.spec.Role === 'manager');
    const tls = { ca: fs.readFileSync(this.p.caCert, 'utf8'), cert: fs.readFileSync(this.p.nodeCert, 'utf8'), key };
    let last: unknown = new Error('no manager to renew the node certificate');
    for (const m of managers) {
      try {
        return (await requestRenewal(splitHostPort(m.value.managerAddr, 2377), tls, csr)).cert;
      } catch (err) {
        last = err;
      }
    }
    throw last;
  }

  /** A manager's side of a renewal: the node named by the certificate it showed, as the records describe it. */
  async acceptRenewal(nodeId: string, csr: string): Promise<{ cert: string }> {
    const state = this.manager();
    const [n, c] = await Promise.all([state.node(nodeId), this.clusterRecord(state)]);
    if (!n) throw notFound(`node ${nodeId} not found`);
    return { cert: await this.signRenewal(n.value, c.value, csr) };
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
    const state = this.manager();
    const c = await state.patient(() => this.clusterRecord(state));
    return { cluster: c, tls: this.tlsFacts(c.value), tokens: { worker: ca.joinToken(c.value.caCert, c.value.workerSecret), manager: ca.joinToken(c.value.caCert, c.value.managerSecret) } };
  }

  async update(version: number, spec: SwarmSpec | undefined, rotate: { worker: boolean; manager: boolean }): Promise<void> {
    const state = this.manager();
    const c = await this.clusterRecord(state);
    if (c.version !== version) throw conflict('rpc error: code = Unknown desc = update out of sequence');
    if (spec?.EncryptionConfig?.AutoLockManagers) throw invalidParameter('berth does not support autolock');
    if (spec) this.checkCertExpiry(spec);
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
    const [nodes, alive, leader, cluster] = await state.patient(() => Promise.all([state.nodes(), state.alive(), state.leader(), this.clusterRecord(state)]));
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
    try {
      await this.updateNodeRecord(ref, version, spec);
    } catch (err) {
      this.deps.logger.debug('node update failed', { ref, step: (err as { step?: string }).step, err: String(err), cause: String((err as { cause?: unknown }).cause ?? '') });
      throw err;
    }
  }

  private async updateNodeRecord(ref: string, version: number, spec: NodeSpec): Promise<void> {
    const state = this.manager();
    const views = await this.views(state);
    const v = this.findView(views, ref);
    const cur = v.node.value;
    if (v.node.version !== version) throw conflict('rpc error: code = Unknown desc = update out of sequence');
    const next: NodeRecord = { ...cur, spec: { ...spec, Labels: spec.Labels ?? {} }, updatedAt: nowISO() };
    if (cur.spec.Role === 'manager' && spec.Role === 'worker') {
      const managers = views.filter((x) => x.node.value.spec.Role === 'manager');
      if (managers.length <= 1) throw invalidParameter('rpc error: code = FailedPrecondition desc = attempting to demote the last manager of the swarm');
      // Demote: out of the etcd membership first (the node notices its record and stops its member).
      delete next.etcdInitialCluster;
      if (this.local?.store) return void (await state.putNode(next, version));
      await step('etcd member remove', () => state.memberRemoveByPeer(cur.peerURL));
      await step('record', () => state.putNodeSettling(next, version));
      return;
    }
    if (cur.spec.Role === 'worker' && spec.Role === 'manager') {
      if (this.local?.store) return void (await state.putNode({ ...next, etcdInitialCluster: 'store' }, version));
      // Promote: the record (with how to start the member) before the member (which takes the quorum of a
      // one-manager cluster until it starts).
      const members = await state.members();
      // (the node computes its --initial-cluster itself once its member is added; the field marks the promotion)
      next.etcdInitialCluster = initialClusterOf(members.filter((m) => !m.peerURLs.includes(cur.peerURL)), cur.id, cur.peerURL);
      const written = await state.putNode(next, version);
      if (!members.some((m) => m.peerURLs.includes(cur.peerURL))) {
        try {
          await state.memberAdd(cur.peerURL);
        } catch (err) {
          await state.putNode({ ...cur, updatedAt: nowISO() }, written).catch(() => undefined);
          throw err;
        }
      }
      return;
    }
    await state.putNode(next, version);
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
    const all = await state.patient(() => state.tasks());
    const serviceRefs = filters.get('service') ?? [];
    const services = serviceRefs.length ? await state.services() : [];
    const serviceIds = serviceRefs.map((r) => findService(services, r).value.id);
    const nodeRefs = filters.get('node') ?? [];
    const views = nodeRefs.length ? await this.views(state) : [];
    const nodeIds = nodeRefs.map((r) => this.findView(views, r).node.value.id);
    const match = taskFilter({ filters, serviceIds, nodeIds });
    return all.filter((t) => match(t.value)).sort((a, b) => a.value.CreatedAt.localeCompare(b.value.CreatedAt));
  }

  /** The cluster state for a manager; the reference's 406 (outside a swarm) or 503 (a worker) otherwise. */
  managerState(): ClusterState {
    return this.manager();
  }

  /** This node in its swarm, for the orchestrator and the agent (undefined outside a swarm or while connecting). */
  current(): { state: ClusterState; nodeId: string; role: NodeRole; advertiseAddr: string; listenAddr: string } | undefined {
    const local = this.local;
    const state = this.state;
    if (!local || !state) return undefined;
    return { state, nodeId: local.nodeId, role: local.role, advertiseAddr: local.advertiseAddr, listenAddr: local.listenAddr };
  }

  async task(id: string): Promise<Versioned<TaskRecord>> {
    const state = this.manager();
    const all = await state.patient(() => state.tasks());
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

/**
 * The heartbeat lease TTL in seconds: one period, at least 2 s (etcd's floor with a 1 s election timeout); etcd3
 * refreshes it every third of that. A killed node's lease lapses one TTL after its last refresh (plus an election
 * timeout when its etcd member was the etcd leader), so it shows down within 3 periods.
 */
function ttlOf(periodMs: number): number {
  return Math.max(2, Math.ceil(periodMs / 1000));
}

/** Runs one step of a multi-step change; a failure names the step in the debug log (the error itself is unchanged). */
async function step<T>(name: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    (err as { step?: string }).step ??= name;
    throw err;
  }
}

function portOf(addr: string): number {
  return Number(addr.split(':').pop());
}

/** CAConfig.NodeCertExpiry in seconds (90 days when the Spec has none). */
function certExpirySec(spec: SwarmSpec): number {
  const ns = spec.CAConfig?.NodeCertExpiry || 7_776_000_000_000_000;
  return Math.max(1, Math.round(ns / 1e9));
}

/** Seconds as Go prints a time.Duration: 1h0m0s, 5m0s, 30s. */
function goDuration(sec: number): string {
  const h = Math.floor(sec / 3600);
  const m = Math.floor((sec % 3600) / 60);
  const s = sec % 60;
  return h ? `${h}h${m}m${s}s` : m ? `${m}m${s}s` : `${s}s`;
}
