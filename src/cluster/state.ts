// The cluster's state in etcd, through the npm etcd3 client over TLS (docs/swarm.md, "State"): the cluster object,
// node records, alive keys on heartbeat leases, the leader election, tasks, and etcd's own membership. Versions are
// etcd mod revisions; conditional writes are transactions comparing them. Errors of an etcd without quorum become
// the reference's "no leader" answer; nothing here knows HTTP.
import type { Etcd3, Lease, Campaign, IOptions } from 'etcd3';
import { BerthError, conflict, systemError, unavailable } from '../errors';
import type { ClusterRecord, NodeRecord, PortConfig, ServiceRecord, TaskRecord, Versioned } from '../types/swarm';
import type { Logger } from '../log';

const PREFIX = '/berth/swarm/';
const K = {
  cluster: PREFIX + 'cluster',
  node: (id: string) => PREFIX + 'nodes/' + id,
  nodes: PREFIX + 'nodes/',
  alive: (id: string) => PREFIX + 'alive/' + id,
  alives: PREFIX + 'alive/',
  tasks: PREFIX + 'tasks/',
  task: (id: string) => PREFIX + 'tasks/' + id,
  services: PREFIX + 'services/',
  service: (id: string) => PREFIX + 'services/' + id,
  serviceName: (name: string) => PREFIX + 'service-names/' + name,
  port: (p: PortConfig) => `${PREFIX}ports/${p.Protocol}/${p.PublishedPort}`,
};

/** The ingress ports a service holds (each a key, so that two services never hold one). */
const heldPorts = (s: ServiceRecord): PortConfig[] => s.ports.filter((p) => p.PublishMode === 'ingress' && p.PublishedPort);
const ELECTION = 'berth-swarm-leader';

export const NO_LEADER =
  "rpc error: code = Unknown desc = The swarm does not have a leader. It's possible that too few managers are online. Make sure more than half of the managers are online.";
export const OUT_OF_SEQUENCE = 'rpc error: code = Unknown desc = update out of sequence';

/** How long one etcd call may take before the cluster counts as without a leader. */
const CALL_TIMEOUT_MS = 4000;

/**
 * How long an API read waits out a cluster without a leader before answering NO_LEADER (patient()): the reference's
 * manager waits for its Raft leader connection while it has been leaderless for up to 10 of swarmkit's 1 s ticks,
 * then answers at once. berth's etcd elects in about a second; on a loaded machine an election has taken 4 s and more.
 */
export const LEADERLESS_WAIT_MS = 8000;
const LEADERLESS_POLL_MS = 250;

/** A member of the etcd cluster as memberList shows it (`name` is empty until the member has started). */
export interface EtcdMemberInfo {
  id: string;
  name: string;
  peerURLs: string[];
  clientURLs: string[];
}

/**
 * `--initial-cluster` for a member joining an existing etcd cluster: every member of the list (etcd checks the
 * count and the peer URLs; a member not started yet has no name, so it gets a placeholder), this one under `self`.
 */
export function initialClusterOf(members: EtcdMemberInfo[], self: string, selfPeerURL: string): string {
  return members
    .map((m) => `${m.peerURLs.includes(selfPeerURL) ? self : m.name || `pending-${m.id}`}=${m.peerURLs[0]}`)
    .concat(members.some((m) => m.peerURLs.includes(selfPeerURL)) ? [] : [`${self}=${selfPeerURL}`])
    .join(',');
}

export interface EtcdCredentials {
  ca: Buffer;
  cert: Buffer;
  key: Buffer;
}

// etcd3 and cockatiel are loaded with the first ClusterState (a node in a swarm): outside one they cost idle memory.
const etcd3 = (): typeof import('etcd3') => require('etcd3');
const cockatiel = (): typeof import('cockatiel') => require('cockatiel');

/** etcd refusing a reconfiguration: the answer of a healthy member, not to be repeated at once nor held against it. */
const REFUSAL = /unhealthy cluster|not enough started members/;
/**
 * Failures that say nothing against the host that gave them. etcd's leaderless answers (an election after a member's
 * loss): the cluster's state, which every member answers alike, and the member that answered serves again once a
 * leader is elected. grpc-js's "Cancelled on client": a stream this client ended itself (etcd3 cancels its watch
 * stream when the last watcher goes, as when a campaign is won, and takes the cancel for a failure of the host). And
 * "Channel closed before call started": the calls queued on a channel etcd3 closed itself, as it does after any
 * recoverable failure on a host, these included (the failure behind the close, if it was the host's, counted already).
 */
const NOT_THE_HOST = /etcdserver: (no leader|leader changed|request timed out)|Cancelled on client|Channel closed before call started/;

/** A call that failed in a way another attempt may not (etcd3's recoverable errors, less etcd's refusals). */
export const retriable = (err: Error): boolean => etcd3().isRecoverableError(err) && !REFUSAL.test(err.message);

/**
 * A failure of the host itself (unreachable, connection dropped, no answer in time), which counts towards opening its
 * circuit (3 in a row: the node's calls skip the host for 5 s, and fail when every host's circuit is open). The
 * failures of NOT_THE_HOST do not. Counted, they opened the circuit of the node's own live member (the dead one's was
 * open already) at the moment of a failover: every read waiting on the lost etcd leader answers "leader changed",
 * and the node whose campaign wins cancels its watch stream; etcd3 then closes the channel under the calls queued on
 * it. Every call of that node failed for 5 s after the cluster had its new leader: a killed leader showed down 9-11 s
 * after its kill instead of 4-6 (swarm-cluster's bound is 6), and the background rounds failed long enough to rebuild
 * the client, which moved the leadership.
 */
export const hostFailure = (err: Error): boolean => retriable(err) && !NOT_THE_HOST.test(err.message);

function fromEtcd(err: unknown): BerthError {
  if (err instanceof BerthError) return err;
  const name = (err as Error)?.name ?? '';
  const msg = String((err as Error)?.message ?? err);
  if (/unhealthy cluster|not enough started members/.test(msg)) return unavailable(`rpc error: code = Unavailable desc = ${msg}`);
  if (/deadline.?exceeded|unavailable|request timed out|no leader|leader changed|ClientRuntime|connect|circuit|Broken/i.test(name + ' ' + msg)) {
    return systemError(NO_LEADER, err);
  }
  return systemError(msg, err);
}

export async function guard<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (err) {
    throw fromEtcd(err);
  }
}

export class ClusterState {
  readonly client: Etcd3;
  private lease?: Lease;
  private campaign?: Campaign;
  private closed = false;

  constructor(
    endpoints: string[],
    creds: EtcdCredentials | undefined,
    private readonly logger: Logger,
  ) {
    const { circuitBreaker, ConsecutiveBreaker, handleWhen, retry } = cockatiel();
    const opts: IOptions = {
      hosts: endpoints,
      // an existing etcd (`--cluster-store`) is reached over plain http
      credentials: creds ? { rootCertificate: creds.ca, certChain: creds.cert, privateKey: creds.key } : undefined,
      dialTimeout: CALL_TIMEOUT_MS,
      // Node certificates name every node `localhost` too: TLS checks that name, not the IP (Node warns on an IP).
      grpcOptions: { 'grpc.ssl_target_name_override': 'localhost', 'grpc.default_authority': 'localhost' },
      defaultCallOptions: (ctx) => (ctx.isStream ? {} : { deadline: Date.now() + CALL_TIMEOUT_MS }),
      // etcd3's default policies, less etcd's refusals of a reconfiguration ("unhealthy cluster"): those are answers
      // of a healthy member (retried by memberAdd itself), not a host to avoid or a call to repeat elsewhere. Its
      // leaderless answers are tried again (another member may have its leader already) but open no circuit.
      faultHandling: {
        host: (host) => {
          const counted = (err: Error): boolean => {
            const f = hostFailure(err);
            logger.debug('etcd call failed', { host, err: String(err), counted: f });
            return f;
          };
          const b = circuitBreaker(handleWhen(counted), { halfOpenAfter: 5000, breaker: new ConsecutiveBreaker(3) });
          b.onBreak((r) => logger.debug('etcd host circuit open', { host, err: 'error' in r ? String(r.error) : 'isolated' }));
          b.onHalfOpen(() => logger.debug('etcd host circuit half-open', { host }));
          b.onReset(() => logger.debug('etcd host circuit closed', { host }));
          return b;
        },
        global: retry(handleWhen(retriable), { maxAttempts: 3 }),
      },
    };
    this.client = new (etcd3().Etcd3)(opts);
  }

  /** Since when the cluster has been without a leader as patient() reads saw it (unset: a read or round succeeded). */
  private leaderlessSince?: number;

  /**
   * A read for an API answer: while the cluster has been without a leader for less than LEADERLESS_WAIT_MS (an etcd
   * election after a membership change or a member's loss), the read is tried again until one answers; past that,
   * NO_LEADER at once, as a manager of the reference answers when quorum is lost. Reads only: a write that failed
   * may have been applied.
   */
  async patient<T>(read: () => Promise<T>): Promise<T> {
    const start = Date.now();
    for (let tries = 1; ; tries++) {
      try {
        const v = await read();
        this.leaderlessSince = undefined;
        if (tries > 1) this.logger.debug('a read waited out a leaderless spell', { ms: Date.now() - start, tries });
        return v;
      } catch (err) {
        if (!(err instanceof BerthError && err.message === NO_LEADER)) throw err;
        if (tries === 1) this.logger.debug('a read found no leader', { cause: String(err.cause) });
        this.leaderlessSince ??= start;
        if (Date.now() - this.leaderlessSince >= LEADERLESS_WAIT_MS) throw err;
        await new Promise((r) => setTimeout(r, LEADERLESS_POLL_MS));
      }
    }
  }

  /** The cluster answered a round of reads (the background reconcile): a leader is there. */
  sawLeader(): void {
    this.leaderlessSince = undefined;
  }

  private async getJSON<T>(key: string): Promise<Versioned<T> | undefined> {
    const r = await guard(this.client.get(key).exec());
    const kv = r.kvs[0];
    if (!kv) return undefined;
    return { value: JSON.parse(kv.value.toString('utf8')) as T, version: Number(kv.mod_revision) };
  }

  private async listJSON<T>(prefix: string): Promise<Versioned<T>[]> {
    const r = await guard(this.client.getAll().prefix(prefix).exec());
    return r.kvs.map((kv) => ({ value: JSON.parse(kv.value.toString('utf8')) as T, version: Number(kv.mod_revision) }));
  }

  /** Writes `value` if the key's mod revision is still `version` (0: the key must not exist). */
  private async putIf(key: string, value: unknown, version: number): Promise<number> {
    const r = await guard(
      this.client
        .if(key, 'Mod', '==', version)
        .then(this.client.put(key).value(JSON.stringify(value)))
        .commit(),
    );
    if (!r.succeeded) throw conflict(OUT_OF_SEQUENCE);
    return Number(r.header.revision);
  }

  cluster(): Promise<Versioned<ClusterRecord> | undefined> {
    return this.getJSON<ClusterRecord>(K.cluster);
  }

  putCluster(rec: ClusterRecord, version: number): Promise<number> {
    return this.putIf(K.cluster, rec, version);
  }

  node(id: string): Promise<Versioned<NodeRecord> | undefined> {
    return this.getJSON<NodeRecord>(K.node(id));
  }

  nodes(): Promise<Versioned<NodeRecord>[]> {
    return this.listJSON<NodeRecord>(K.nodes);
  }

  putNode(rec: NodeRecord, version: number): Promise<number> {
    return this.putIf(K.node(rec.id), rec, version);
  }

  /**
   * putNode right after a membership change, which may leave etcd without a leader for a moment (removing the
   * etcd leader's member, say): "no leader" is retried for up to 15 s. A retry that finds the version moved checks
   * whether the record is this write's (an attempt applied but answered too late).
   */
  async putNodeSettling(rec: NodeRecord, version: number): Promise<void> {
    const deadline = Date.now() + 15_000;
    for (let attempt = 0; ; attempt++) {
      try {
        await this.putNode(rec, version);
        return;
      } catch (err) {
        if (attempt > 0 && err instanceof BerthError && err.kind === 'Conflict') {
          const cur = await this.node(rec.id);
          if (cur && cur.value.updatedAt === rec.updatedAt) return;
        }
        if (!(err instanceof BerthError && err.message === NO_LEADER) || Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  /** Every key of the swarm (the last manager of a swarm in an existing etcd leaves: its state is erased). */
  async erase(): Promise<void> {
    await guard(this.client.delete().prefix(PREFIX).exec());
  }

  async deleteNode(id: string): Promise<void> {
    await guard(this.client.delete().key(K.node(id)).exec());
    await guard(this.client.delete().key(K.alive(id)).exec());
  }

  /** Ids of the nodes whose heartbeat lease is alive. */
  async alive(): Promise<Set<string>> {
    const keys = await guard(this.client.getAll().prefix(K.alives).keys());
    return new Set(keys.map((k) => k.slice(K.alives.length)));
  }

  async leader(): Promise<string | undefined> {
    return guard(this.client.election(ELECTION).leader());
  }

  tasks(): Promise<Versioned<TaskRecord>[]> {
    return this.listJSON<TaskRecord>(K.tasks);
  }

  task(id: string): Promise<Versioned<TaskRecord> | undefined> {
    return this.getJSON<TaskRecord>(K.task(id));
  }

  /** Writes a task if its version is still `version` (0: a new task); false when another write came first. */
  async putTask(t: TaskRecord, version: number): Promise<boolean> {
    const r = await guard(this.client.if(K.task(t.ID), 'Mod', '==', version).then(this.client.put(K.task(t.ID)).value(JSON.stringify(t))).commit());
    return r.succeeded;
  }

  async deleteTask(id: string, version: number): Promise<boolean> {
    const r = await guard(this.client.if(K.task(id), 'Mod', '==', version).then(this.client.delete().key(K.task(id))).commit());
    return r.succeeded;
  }

  services(): Promise<Versioned<ServiceRecord>[]> {
    return this.listJSON<ServiceRecord>(K.services);
  }

  /**
   * A new service with its name and ports, in one transaction: false when the name or a port was taken meanwhile.
   */
  async createService(s: ServiceRecord): Promise<boolean> {
    const keys = [K.service(s.id), K.serviceName(s.spec.Name), ...heldPorts(s).map(K.port)];
    const [first, ...rest] = keys;
    let cmp = this.client.if(first, 'Create', '==', 0);
    for (const k of rest) cmp = cmp.and(k, 'Create', '==', 0);
    const r = await guard(
      cmp
        .then(
          this.client.put(K.service(s.id)).value(JSON.stringify(s)),
          this.client.put(K.serviceName(s.spec.Name)).value(s.id),
          ...heldPorts(s).map((p) => this.client.put(K.port(p)).value(s.id)),
        )
        .commit(),
    );
    return r.succeeded;
  }

  /**
   * A service's new record if its version is still `version`, its ports moved in the same transaction (a port it
   * newly holds must be free). Throws the reference's "update out of sequence" when the version moved; false when
   * a new port was taken meanwhile.
   */
  async updateService(next: ServiceRecord, prev: ServiceRecord, version: number): Promise<boolean> {
    const before = new Set(heldPorts(prev).map(K.port));
    const after = new Set(heldPorts(next).map(K.port));
    let cmp = this.client.if(K.service(next.id), 'Mod', '==', version);
    for (const k of after) if (!before.has(k)) cmp = cmp.and(k, 'Create', '==', 0);
    const r = await guard(
      cmp
        .then(
          this.client.put(K.service(next.id)).value(JSON.stringify(next)),
          ...[...before].filter((k) => !after.has(k)).map((k) => this.client.delete().key(k)),
          ...[...after].filter((k) => !before.has(k)).map((k) => this.client.put(k).value(next.id)),
        )
        .commit(),
    );
    if (r.succeeded) return true;
    const cur = await this.getJSON<ServiceRecord>(K.service(next.id));
    if (!cur || cur.version !== version) throw conflict(OUT_OF_SEQUENCE);
    return false;
  }

  /** A service, its name and its ports, in one transaction. */
  async deleteService(s: ServiceRecord): Promise<void> {
    await guard(
      this.client
        .if(K.service(s.id), 'Create', '>', 0)
        .then(this.client.delete().key(K.service(s.id)), this.client.delete().key(K.serviceName(s.spec.Name)), ...heldPorts(s).map((p) => this.client.delete().key(K.port(p))))
        .commit(),
    );
  }

  /**
   * Heartbeats: a lease with TTL `ttlSec` (etcd3 refreshes it every third of the TTL) carrying `alive/<id>`; a
   * manager also campaigns in the leader election. A lost lease (etcd unreachable past the TTL) is granted again.
   * Every third of the TTL the alive key is checked to be on this lease, and put again when it is not: a previous
   * lease of this node (a heartbeat period changed, a client replaced) whose late put landed after this one's and
   * was then revoked takes the key with it, and the node would show down for good while its lease lives.
   * `after`: the first put of the heartbeat this one replaces (another client's). This one's first put waits for it
   * to be answered (up to one call's deadline), so that it lands last and the key is on this lease when the old one
   * is revoked: otherwise a late put of the old lease, then its revocation, left the node without its key until the
   * check above (up to a third of the TTL), and a restarted node (its first client at the default period, replaced
   * once it has read the cluster's) listed itself down right after a survivor had listed it ready.
   */
  startHeartbeat(nodeId: string, ttlSec: number, manager: boolean, after?: Promise<void>): Promise<void> {
    if (this.closed) return Promise.resolve();
    const lease = this.client.lease(ttlSec, { autoKeepAlive: true });
    this.lease = lease;
    const current = (): boolean => !this.closed && !this.retired && this.lease === lease;
    lease.on('lost', () => {
      if (!current()) return;
      this.logger.warn('swarm heartbeat lease lost; granting a new one');
      this.stopCampaign();
      setTimeout(() => void this.startHeartbeat(nodeId, ttlSec, manager), 500).unref();
    });
    if (manager) this.startCampaign(nodeId, ttlSec);
    const put = () => lease.put(K.alive(nodeId)).value(String(Date.now())).exec();
    let checking = false;
    const keeper = setInterval(() => {
      if (!current()) return clearInterval(keeper);
      if (checking) return;
      checking = true;
      Promise.all([this.client.get(K.alive(nodeId)).exec(), lease.grant()])
        .then(async ([r, id]) => {
          if (!current() || r.kvs[0]?.lease === id) return;
          this.logger.debug('swarm heartbeat key not on the current lease; putting it again');
          await put();
        })
        .catch(() => undefined)
        .finally(() => (checking = false));
    }, Math.max(500, (ttlSec * 1000) / 3));
    keeper.unref();
    let timer: NodeJS.Timeout | undefined;
    const previous = after ? Promise.race([after, new Promise<void>((r) => (timer = setTimeout(r, CALL_TIMEOUT_MS)))]).finally(() => clearTimeout(timer)) : Promise.resolve();
    this.beating = previous
      .then(() => put())
      .then(
        () => undefined,
        (err) => {
          this.logger.warn('swarm heartbeat failed', { err: String(err) });
        },
      );
    return this.beating;
  }

  /** The first put of the running heartbeat (settles, never fails). */
  beating?: Promise<void>;

  private retired = false;

  /**
   * Another client's heartbeat replaces this one: its lease stays alive (the node never shows down in between) until
   * stopHeartbeat, but its key is no longer checked and put again (put on this lease, it would go with its revocation).
   */
  retire(): void {
    this.retired = true;
  }

  private startCampaign(nodeId: string, ttlSec: number): void {
    const c = this.client.election(ELECTION, ttlSec).campaign(nodeId);
    this.campaign = c;
    c.on('error', (err) => {
      if (this.closed || this.campaign !== c) return;
      this.logger.warn('swarm leader campaign failed; campaigning again', { err: String(err) });
      setTimeout(() => {
        if (!this.closed && this.campaign === c) this.startCampaign(nodeId, ttlSec);
      }, 500).unref();
    });
  }

  private stopCampaign(): void {
    const c = this.campaign;
    this.campaign = undefined;
    c?.resign().catch(() => undefined);
  }

  /** Ends the heartbeat at once (leave): the alive key and the candidacy go with the lease. */
  async stopHeartbeat(): Promise<void> {
    const c = this.campaign;
    const l = this.lease;
    this.campaign = undefined;
    this.lease = undefined;
    await c?.resign().catch(() => undefined);
    await l?.revoke().catch(() => undefined);
  }

  /**
   * A membership change, then `done()` checked when the call failed: a call whose first attempt was applied but
   * answered an error (a timeout under load, then a retry that finds the member added or gone) is a success. etcd
   * refuses a change while a member that (re)joined less than 5 s ago is not yet connected to all peers ("unhealthy
   * cluster"): that is retried for up to 15 s.
   */
  private async reconfigure(change: () => Promise<unknown>, done: () => Promise<boolean>, retryable = /unhealthy cluster|not enough started members/): Promise<void> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      try {
        await guard(change());
        return;
      } catch (err) {
        if (await done().catch(() => false)) return;
        // (no leader for a moment: a membership change elects a new etcd leader; a loaded machine stalls one)
        if (!(err instanceof BerthError && (retryable.test(err.message) || err.message === NO_LEADER)) || Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  private async memberByPeer(peerURL: string) {
    const list = await guard(this.client.cluster.memberList({}));
    return list.members.find((x) => x.peerURLs.includes(peerURL));
  }

  /**
   * Adds a member for `peerURL`. etcd derives a new member's ID from its peer URLs and the current second: adding
   * a peer URL again within the second it was removed (a demote, then a promote) makes the ID of the removed member,
   * which etcd refuses as "member not found" (its ErrIDRemoved). That is retried too: the next second gives a new ID.
   */
  memberAdd(peerURL: string): Promise<void> {
    return this.reconfigure(
      () => this.client.cluster.memberAdd({ peerURLs: [peerURL] }),
      async () => !!(await this.memberByPeer(peerURL)),
      /unhealthy cluster|not enough started members|member not found/,
    );
  }

  /** Removes the member serving `peerURL` (none: nothing to do). */
  async memberRemoveByPeer(peerURL: string): Promise<void> {
    const m = await this.memberByPeer(peerURL);
    if (!m) return;
    await this.reconfigure(
      () => this.client.cluster.memberRemove({ ID: m.ID }),
      async () => !(await this.memberByPeer(peerURL)),
    );
  }

  async members(): Promise<EtcdMemberInfo[]> {
    const list = await guard(this.client.cluster.memberList({}));
    return list.members.map((m) => ({ id: String(m.ID), name: m.name, peerURLs: m.peerURLs, clientURLs: m.clientURLs }));
  }

  close(): void {
    this.closed = true;
    this.campaign = undefined;
    this.lease = undefined;
    this.client.close();
  }
}
