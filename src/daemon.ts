// The composition root: config → logger → containerd client → stores → services → event bridge → app → listen.
// Nothing else constructs services; no module holds a singleton.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FifoPool } from './runtime/fifo';
import { InFlight } from './runtime/inflight';
import type { Config } from './config';
import type { Logger } from './log';
import { Containerd } from './containerd/client';
import { releaseOperationLeases } from './containerd/leases';
import * as snapshotApi from './containerd/snapshots';
import { containerdStateDir } from './containerd/state-dir';
import { ContainerdSupervisor, ownContainerdPaths, socketAlive } from './containerd/supervisor';
import { createApp, Route } from './http/app';
import { currentAnswer } from './http/answer';
import { listen, Listener } from './http/server';
import { validateLogOptions } from './translate/request/log-options';
import { intToIp, parseCidr } from './network/ipam';
import { containerAttributes } from './translate/response/events';
import { activatedFds, checkHosts, fdsFor, loadTlsFiles, socketGroup, StartError, type HostSpec } from './http/listeners';
import { EventBus } from './events/bus';
import { SystemService } from './services/system';
import { systemRoutes } from './handlers/system';
import { infoSwarmSection, swarmRoutes } from './handlers/swarm';
import { nodeRoutes } from './handlers/nodes';
import { ClusterService } from './cluster/service';
import { SwarmServices } from './cluster/services';
import { SwarmNetworks } from './cluster/networks';
import { OverlayNode } from './cluster/overlay';
import { DEFAULT_VXLAN_PORT } from './cluster/overlay-plan';
import { Orchestrator } from './cluster/orchestrator';
import { NodeAgent } from './cluster/agent';
import { RoutingMesh } from './cluster/routing-mesh';
import { decodeAuthHeader } from './translate/request/auth';
import { parseReference } from './translate/reference';
import { serviceRoutes } from './handlers/services';
import { ImageService, SNAPSHOTTER } from './services/images';
import { imageRoutes } from './handlers/images';
import { RegistryService } from './services/registry';
import { registryRoutes } from './handlers/registry';
import { SaveService } from './services/save';
import { CommitService } from './services/commit';
import { imageIoRoutes } from './handlers/image-io';
import { ContainerStore } from './store/containers';
import { ContainerService } from './services/containers';
import { containerRoutes } from './handlers/containers';
import { eventRoutes } from './handlers/events';
import { ExecService } from './services/exec';
import { HealthMonitor } from './services/health';
import { execRoutes } from './handlers/exec';
import { VolumeService } from './services/volumes';
import { VolumeDrivers } from './plugins/drivers';
import { PluginService } from './plugins/service';
import { pluginRoutes } from './handlers/plugins';
import { volumeRoutes } from './handlers/volumes';
import { EventBridge } from './events/bridge';
import { statsRoutes } from './handlers/stats';
import { StatsService } from './services/stats';
import { NetworkService } from './services/networks';
import { ContainerNetworking } from './services/container-network';
import { DnsService } from './services/dns';
import { networkRoutes } from './handlers/networks';
import { FilesystemService } from './services/filesystem';
import { filesystemRoutes } from './handlers/filesystem';
import { BERTH_VERSION } from './version';
import { canonicalCidr6 } from './network/ipam';
import { effectiveLogLevel, readDaemonFile, reloadAttributes, reloadInto } from './daemon-config';
import { BuildService } from './builder/builder';
import { buildRoutes } from './handlers/build';
import { AuthzPlugins } from './authz/plugins';

export interface Daemon {
  config: Config;
  ctr: Containerd;
  events: EventBus;
  listeners: Listener[];
  /** SIGHUP: re-reads daemon.json, applies the reloadable keys and announces them (the daemon `reload` event). */
  reload(): Promise<void>;
  /**
   * Stops serving: no new request, exit or restart is taken on; the requests, exits and record writes under way are
   * awaited (bounded), then everything is let go. Containers keep running: they belong to containerd.
   */
  close(): Promise<void>;
}

export interface DaemonOptions {
  /** Skip listening (tests that drive the app directly). */
  noListen?: boolean;
}

async function resolveContainerd(config: Config, logger: Logger): Promise<{ address: string; supervisor?: ContainerdSupervisor }> {
  if (config.containerd) {
    if (await socketAlive(config.containerd, 1000)) return { address: config.containerd };
    logger.warn('containerd is not reachable; starting berth\'s own', { address: config.containerd });
  }
  const sup = new ContainerdSupervisor(ownContainerdPaths(config.dataRoot, config.execRoot), logger);
  return { address: await sup.ensure(), supervisor: sup };
}

/** daemon.json's log-driver and log-opts are checked at start, as a container's are at create. */
function checkDaemonLogConfig(driver: string, opts: Record<string, string>): void {
  if (driver !== 'json-file' && driver !== 'none') throw new StartError(`logging driver "${driver}" is not supported by berth (json-file and none are)`);
  try {
    validateLogOptions(driver, opts);
  } catch (err) {
    throw new StartError(`failed to set log opts: ${(err as Error).message}`);
  }
}

/** The default bridge's IPv6 subnet (--ipv6, --fixed-cidr-v6), checked as the engine checks them at start. */
export function bridgeSubnet6(config: Config): string | undefined {
  const fail = (m: string) => new StartError(`failed to start daemon: Error initializing network controller: ${m}`);
  if (config.ipv6 && !config.fixedCidrV6) throw fail('IPv6 is enabled for the default bridge, but no subnet is configured. Specify an IPv6 subnet using --fixed-cidr-v6');
  if (!config.fixedCidrV6) return undefined;
  try {
    return canonicalCidr6(config.fixedCidrV6);
  } catch {
    throw fail(`invalid CIDR address: ${config.fixedCidrV6}`);
  }
}

/** The default bridge's subnet and gateway: `bip` (the bridge's address and prefix) when set, else --bridge-subnet. */
export function defaultBridgeAddress(config: Config): { subnet: string; gateway?: string } {
  if (!config.bip) return { subnet: config.bridgeSubnet };
  const m = /^(\d{1,3}(?:\.\d{1,3}){3})\/(\d{1,2})$/.exec(config.bip);
  let c: { base: number; prefix: number } | undefined;
  try {
    if (m) c = parseCidr(config.bip);
  } catch {
    c = undefined;
  }
  if (!m || !c) throw new StartError(`failed to start daemon: Error initializing network controller: Error initializing bridge driver: invalid CIDR address: ${config.bip}`);
  return { subnet: `${intToIp(c.base)}/${c.prefix}`, gateway: m[1] };
}

/** default-address-pools checked as the engine's network controller checks them at start. */
export function addressPools(config: Config): { base: string; size: number }[] | undefined {
  const pools = config.defaultAddressPools;
  if (!pools?.length) return undefined;
  const fail = (m: string) => new StartError(`failed to start daemon: Error initializing network controller: error obtaining controller instance: ${m}`);
  for (const p of pools) {
    let prefix: number;
    try {
      prefix = parseCidr(p.base).prefix;
    } catch {
      throw fail(`invalid base pool "${p.base}": invalid CIDR address: ${p.base}`);
    }
    if (p.size <= 0 || p.size < prefix || p.size > 32) throw fail(`invalid pools size: ${p.size}`);
  }
  return pools;
}

/**
 * exec-opts' native.cgroupdriver (the last one given; other options and ones without a value are ignored, as the
 * engine ignores them) and the cgroup parent it needs: with systemd a slice (`system.slice` by default).
 */
export function cgroupSettings(config: Config): { driver: 'cgroupfs' | 'systemd'; parent: string } {
  let driver = 'cgroupfs';
  for (const o of config.execOpts) {
    const eq = o.indexOf('=');
    if (eq > 0 && o.slice(0, eq).trim().toLowerCase() === 'native.cgroupdriver') driver = o.slice(eq + 1).trim();
  }
  if (driver === 'none') throw new StartError('failed to start daemon: native.cgroupdriver option none is internally used and cannot be specified manually');
  if (driver !== 'cgroupfs' && driver !== 'systemd') throw new StartError(`failed to start daemon: native.cgroupdriver option ${driver} not supported`);
  if (driver === 'cgroupfs') return { driver, parent: config.cgroupParent };
  // runc's test for systemd (sd_booted): the engine starts and then every container fails with runc's message
  if (!fs.existsSync('/run/systemd/system')) throw new StartError('failed to start daemon: native.cgroupdriver option systemd: systemd not running on this host, cannot use systemd cgroups manager');
  const given = config.given['cgroup-parent'] !== undefined || (config.file?.['cgroup-parent'] ?? null) !== null;
  if (!given) return { driver, parent: 'system.slice' };
  if (config.cgroupParent.length <= 6 || !config.cgroupParent.endsWith('.slice')) throw new StartError('failed to start daemon: cgroup-parent for systemd cgroup should be a valid slice named as "xxx.slice"');
  return { driver, parent: config.cgroupParent };
}

export async function startDaemon(config: Config, logger: Logger, opts: DaemonOptions = {}): Promise<Daemon> {
  // What to listen on is settled first: a refused configuration (unauthenticated TCP, unreadable certificates, an
  // unknown group, fd:// without systemd's sockets) starts nothing.
  const hostPlan = checkHosts(config);
  const tls = loadTlsFiles(config);
  const group = hostPlan.specs.some((s) => s.kind === 'unix') ? socketGroup(config.group) : { gid: 0 };
  const activated = activatedFds();
  checkDaemonLogConfig(config.logDriver, config.logOpts);
  const bridgeV6 = bridgeSubnet6(config);
  const bridge4 = defaultBridgeAddress(config);
  const pools = addressPools(config);
  const cgroups = cgroupSettings(config);
  config.cgroupDriver = cgroups.driver;
  const targets = hostPlan.specs.flatMap((spec, i): { address: string; spec: HostSpec }[] =>
    spec.kind === 'fd' ? fdsFor(spec, activated).map((fd) => ({ address: config.hosts[i], spec: { kind: 'fd', fd } })) : [{ address: config.hosts[i], spec }],
  );
  for (const d of [config.dataRoot, config.execRoot]) fs.mkdirSync(d, { recursive: true, mode: 0o711 });
  // authorization plugins are looked up and activated before anything starts: a missing one refuses the start
  const authz = new AuthzPlugins({ socketDir: config.pluginSocketDir, specDirs: config.pluginSpecDirs }, logger, config.pluginTimings);
  try {
    await authz.configure(config.authorizationPlugins);
  } catch (err) {
    throw new StartError((err as Error).message);
  }
  const { address, supervisor } = await resolveContainerd(config, logger);
  const ctr = new Containerd({ address, namespace: config.namespace });
  await ctr.waitReady(15_000);

  // what a request's handling publishes reaches subscribers after its answer (src/http/answer.ts)
  const events = new EventBus({ holdOf: currentAnswer });
  events.persistTo(path.join(config.dataRoot, 'events.jsonl'));
  const store = new ContainerStore(config.dataRoot);
  const images = new ImageService({ ctr, dataRoot: config.dataRoot, events, store });
  // a plugin whose volume a container uses stays enabled
  const driverInUse = (name: string): boolean => store.all().some((c) => (c.MountPoints ?? []).some((mp) => mp.Driver === name));
  const plugins = new PluginService({ ctr, dataRoot: config.dataRoot, socketDir: config.pluginSocketDir, cgroupParent: config.cgroupParent, logger, events, timings: config.pluginTimings, driverInUse, insecureRegistries: () => config.insecureRegistries });
  const drivers = new VolumeDrivers({ socketDir: config.pluginSocketDir, specDirs: config.pluginSpecDirs }, plugins, config.pluginTimings);
  const volumes = new VolumeService(config.dataRoot, events, store, drivers);
  const networks = new NetworkService({ dataRoot: config.dataRoot, bridgeName: config.bridgeName, bridgeSubnet: bridge4.subnet, bridgeGateway: bridge4.gateway, bridgeIPv6: config.ipv6, bridgeSubnet6: bridgeV6, addressPools: pools, iptables: config.iptables, ipForward: config.ipForward, events, logger });
  const dns = new DnsService({ store, networks, logger, dnsDefaults: config.dns });
  const networking = new ContainerNetworking({ networks, store, logger, dns, dnsDefaults: { dns: config.dns, search: config.dnsSearch, options: config.dnsOptions } });
  // Task FIFOs are made ahead, many per mkfifo(1) run, beside the containers' FIFO folders (renamed into place).
  const fifos = new FifoPool(path.join(config.execRoot, 'fifo', '.pool'));
  const containers = new ContainerService({ ctr, images, store, events, logger, execRoot: config.execRoot, containerdState: containerdStateDir(address, supervisor?.paths.state), cgroupParent: cgroups.parent, systemdCgroup: cgroups.driver === 'systemd', volumes, networking, fifos: fifos.make, logDefaults: { Type: config.logDriver, Config: config.logOpts }, defaultUlimits: config.defaultUlimits });
  const bridge = new EventBridge(ctr, { onOOM: (id) => containers.onOOM(id), onExit: (id, pid, status, at) => containers.onTaskExit(id, pid, status, at) }, logger);
  bridge.start();
  ctr.onReady(() => bridge.kick());
  // What interrupted operations left: their temporary snapshots (a commit's view of a container's init layer, a
  // layer being unpacked, an image's shared init layer before its commit, a per-container init layer of an earlier
  // berth), removed through the API before their leases go. Left to containerd's GC once the lease was gone, such a
  // snapshot stayed its parent's child (the fault suite saw 'cannot remove snapshot with child' on an init layer
  // whose snapshot list showed no child), and the container could never be removed.
  const transient = (k: string) => k.startsWith('berth-commit-view-') || k.startsWith('graphdriver-') || k.startsWith('extract-') || k.endsWith('-init-key') || /^berth-init\/.*-key-[0-9a-f]+$/.test(k);
  for (const key of await snapshotApi.keysMatching(ctr, SNAPSHOTTER, transient)) await snapshotApi.remove(ctr, SNAPSHOTTER, key).catch(() => undefined);
  const staleLeases = await releaseOperationLeases(ctr, ['berth-create', 'berth-init', 'berth-pull', 'berth-load', 'berth-import', 'berth-commit', 'berth-graphdriver']);
  if (staleLeases.length) logger.info('released the leases of interrupted operations', { leases: staleLeases });
  // enabled plugins run before containers are reconciled: a stopped container's plugin volumes are unmounted then
  await plugins.restore();
  await containers.reconcile();
  await networking.releaseStaleLeases();
  await dns.restore();
  await containers.startWithPolicies();
  const execs = new ExecService(ctr, containers, events, config.execRoot, fifos.make);
  const health = new HealthMonitor({
    store,
    events,
    logger,
    run: (id, cmd, timeoutMs) => execs.runProbe(id, cmd, timeoutMs),
    publish: (rec, action) => events.publish('container', action, rec.Id, containerAttributes(rec)),
    healthcheckOf: (rec) => rec.Config.Healthcheck,
  });
  health.resume();
  const filesystem = new FilesystemService({ ctr, find: (ref) => containers.find(ref), events, logger, execRoot: config.execRoot });
  await filesystem.init();
  const system = new SystemService({
    ctr,
    config,
    eventListeners: () => events.listeners,
    imageCount: () => images.count(),
    containerCounts: () => containers.counts(),
    volumeDrivers: () => drivers.names(),
    authorizationPlugins: () => authz.names(),
  });
  // the engine id is made (and kept in the data root) at start, not at the first /info
  system.id();

  const registry = new RegistryService({ ctr, images, events, settings: () => config });
  // (the agent and the cluster refer to each other through closures, called only once both exist)
  const agent: NodeAgent = new NodeAgent({
    current: () => cluster.current(),
    containers,
    logger,
    // (an image named without a tag is its :latest, never every tag of the repository)
    pull: (image, auth) => {
      const ref = parseReference(image);
      return registry.pull(image, ref.tag || ref.digest ? undefined : 'latest', decodeAuthHeader(auth), () => undefined);
    },
    attachNetwork: async (cid, networkId, ip) => {
      await networks.refresh();
      await networking.connect(containers.find(cid), networks.find(networkId), { IPAMConfig: { IPv4Address: ip }, Aliases: null, Links: null });
    },
  });
  const cluster: ClusterService = new ClusterService({
    left: () => agent.removeTaskContainers(),
    dataRoot: config.dataRoot,
    store: config.clusterStore,
    minCertExpirySec: config.swarmMinCertExpirySec,
    logger,
    describe: () => ({
      hostname: os.hostname(),
      architecture: os.arch() === 'x64' ? 'x86_64' : os.arch(),
      os: 'linux',
      nanoCPUs: os.cpus().length * 1e9,
      memoryBytes: os.totalmem(),
      engineVersion: BERTH_VERSION,
      engineLabels: Object.fromEntries(config.labels.map((l) => [l.slice(0, l.includes('=') ? l.indexOf('=') : l.length), l.includes('=') ? l.slice(l.indexOf('=') + 1) : ''])),
    }),
    interfaces: () =>
      Object.fromEntries(Object.entries(os.networkInterfaces()).map(([name, addrs]) => [name, (addrs ?? []).filter((a) => a.family === 'IPv4').map((a) => a.address)])),
  });
  await cluster.start();
  const orchestrator = new Orchestrator({ current: () => cluster.current(), logger, wrote: () => agent.kick() });
  const mesh = new RoutingMesh({ current: () => cluster.current(), containers, logger });
  // overlay networks (docs/overlay.md): records in etcd, this node's datapath, service names and VIPs
  const overlay: OverlayNode = new OverlayNode({
    current: () => cluster.current(),
    networks: () => swarmNetworks.list(),
    refresh: () => swarmNetworks.refresh(),
    endpointsOn: (id) => networking.endpointsOn(id).map((e) => ({ containerId: e.rec.Id, ep: e.ep })),
    renat: (id) => dns.attach(containers.find(id)),
    vxlanPort: config.vxlanPort ?? DEFAULT_VXLAN_PORT,
    logger,
  });
  const swarmNetworks = new SwarmNetworks({ manager: () => cluster.managerState(), current: () => cluster.current(), localNetwork: (ref) => networks.tryFind(ref), driver: (net) => overlay.driver(net) });
  networks.setSwarmNetworks(swarmNetworks);
  dns.addSource(overlay);
  dns.setNatRules((id) => overlay.vipRules(id));
  const swarmServices = new SwarmServices({
    manager: () => cluster.managerState(),
    kick: () => {
      orchestrator.kick();
      mesh.kick();
    },
    resolveNetworks: (spec) => swarmNetworks.resolveSpec(spec),
  });
  orchestrator.start();
  agent.start();
  mesh.start();
  overlay.start();

  const save = new SaveService(ctr, images, events);
  const commit = new CommitService(ctr, images, containers, events);
  const builder = new BuildService({ ctr, images, containers, commits: commit, registry, events, dataRoot: config.dataRoot, logger });
  await builder.init();
  const routes: Route[] = [...systemRoutes(system, () => infoSwarmSection(cluster)), ...swarmRoutes(cluster), ...nodeRoutes(cluster, async () => (await swarmNetworks.refresh(), swarmNetworks.list())), ...serviceRoutes(swarmServices), ...buildRoutes(builder), ...registryRoutes(registry), ...imageIoRoutes({ save: (names, start) => save.save(names, start), commit: (o) => commit.commit(o) }), ...imageRoutes(images), ...containerRoutes(containers, execs), ...execRoutes(execs), ...volumeRoutes(volumes), ...pluginRoutes(plugins), ...networkRoutes(networks, networking, containers), ...statsRoutes(new StatsService(ctr, store)), ...filesystemRoutes(filesystem), ...eventRoutes(events)];

  const handling = new InFlight();
  const app = createApp({ routes, serverVersion: BERTH_VERSION, corsHeader: config.corsHeader, logger, authorizer: authz, track: (h) => void handling.add(h) });
  for (const w of hostPlan.warnings) logger.warn(w);
  if (group.warning) logger.warn(group.warning);
  const listeners = opts.noListen ? [] : await Promise.all(targets.map((t) => listen(app, t.address, { tls, gid: group.gid }, t.spec)));
  for (const l of listeners) logger.info('API listen on ' + l.address);

  let closing: Promise<void> | undefined;
  return {
    config,
    ctr,
    events,
    listeners,
    // SIGHUP: daemon.json is read again and checked whole; a bad file keeps the running configuration (the error is
    // logged); otherwise the engine's reloadable keys are applied and announced with their new values.
    async reload() {
      logger.info(`Got signal to reload configuration, reloading from: ${config.configFile}`);
      let file;
      try {
        file = readDaemonFile(config) ?? {};
        // the new authorization plugins first: one that cannot be had keeps the whole running configuration
        // (the engine exits on it)
        if (Array.isArray(file['authorization-plugins'])) await authz.configure((file['authorization-plugins'] as (string | null)[]).filter((x): x is string => x !== null));
      } catch (err) {
        logger.error((err as Error).message);
        return;
      }
      reloadInto(config, file);
      logger.level = effectiveLogLevel(config);
      events.publish('daemon', 'reload', system.id(), reloadAttributes(config, os.hostname()));
    },
    close() {
      closing ??= closeOnce();
      return closing;
    },
  };

  async function closeOnce(): Promise<void> {
    await Promise.all(listeners.map((l) => l.close()));
    health.close();
    // the requests under way finish (their connections are closed: streams end), with the exits they wait for
    if (!(await handling.drain(5000))) logger.warn('shutting down with requests still under way', { requests: handling.size });
    if (!(await containers.close(10_000))) logger.warn('shutting down with container exits still being recorded');
    bridge.close();
    await dns.close();
    events.close();
    supervisor?.close();
    orchestrator.close();
    agent.close();
    mesh.close();
    overlay.close();
    cluster.close();
    ctr.close();
  }
}
