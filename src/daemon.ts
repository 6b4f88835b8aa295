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
import { infoSwarmSection, swarmRoutes, type SwarmBackend } from './handlers/swarm';
import { nodeRoutes, type NodesBackend } from './handlers/nodes';
import type { SwarmNode } from './cluster/node';
import { serviceRoutes, type ServicesBackend } from './handlers/services';
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
import { VolumeDrivers, type ManagedDriverSource } from './plugins/drivers';
import type { PluginService } from './plugins/service';
import { pluginRoutes, type PluginsBackend } from './handlers/plugins';
import * as leaseApi from './containerd/leases';
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
import type { BuildService } from './builder/builder';
import { removeBuildLeftovers } from './builder/leftovers';
import { buildRoutes, type BuildBackend } from './handlers/build';
import type { SwarmNetworkSource } from './types/network';
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

/** Managed plugins installed (plugins/service keeps each in a folder of its own there). */
function pluginStateOnDisk(dataRoot: string): boolean {
  try {
    return fs.readdirSync(path.join(dataRoot, 'plugins')).length > 0;
  } catch {
    return false;
  }
}

/** A swarm membership, or an init or join a kill cut short (cluster/service start() resumes or undoes it). */
function swarmStateOnDisk(dataRoot: string): boolean {
  return fs.existsSync(path.join(dataRoot, 'swarm'));
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
  // Managed plugins (plugins/service) are loaded at the first plugin request, or at start when some are installed
  // (or an install was cut short): until then none is installed, so none is a volume driver.
  let pluginService: PluginService | undefined;
  const plugins = (): PluginService =>
    (pluginService ??= new (require('./plugins/service') as typeof import('./plugins/service')).PluginService({ ctr, dataRoot: config.dataRoot, socketDir: config.pluginSocketDir, cgroupParent: config.cgroupParent, logger, events, timings: config.pluginTimings, driverInUse, insecureRegistries: () => config.insecureRegistries }));
  const managedDrivers: ManagedDriverSource = {
    findVolumeDriver: (name) => pluginService?.findVolumeDriver(name),
    enabledVolumeDrivers: () => pluginService?.enabledVolumeDrivers() ?? [],
  };
  const drivers = new VolumeDrivers({ socketDir: config.pluginSocketDir, specDirs: config.pluginSpecDirs }, managedDrivers, config.pluginTimings);
  const volumes = new VolumeService(config.dataRoot, events, store, drivers);
  const networks = new NetworkService({ dataRoot: config.dataRoot, bridgeName: config.bridgeName, bridgeSubnet: bridge4.subnet, bridgeGateway: bridge4.gateway, bridgeIPv6: config.ipv6, bridgeSubnet6: bridgeV6, addressPools: pools, iptables: config.iptables, ipForward: config.ipForward, events, logger });
  const dns = new DnsService({ store, networks, logger, dnsDefaults: config.dns });
  const networking = new ContainerNetworking({ networks, store, logger, dns, dnsDefaults: { dns: config.dns, search: config.dnsSearch, options: config.dnsOptions } });
  // Task FIFOs are made ahead, many per mkfifo(1) run, beside the containers' FIFO folders (renamed into place).
  const fifos = new FifoPool(path.join(config.execRoot, 'fifo', '.pool'));
  const containers = new ContainerService({ ctr, images, store, events, logger, execRoot: config.execRoot, containerdState: containerdStateDir(address, supervisor?.paths.state), cgroupParent: cgroups.parent, systemdCgroup: cgroups.driver === 'systemd', volumes, networking, fifos: fifos.make, logDefaults: { Type: config.logDriver, Config: config.logOpts }, defaultUlimits: config.defaultUlimits });
  const bridge = new EventBridge(ctr, { onOOM: (id) => containers.onOOM(id), onExit: (id, pid, status, at) => containers.onTaskExit(id, pid, status, at), onInEffect: (current) => void containers.checkExits(current).catch((err) => logger.warn('cannot look for the exits the event stream missed', { err: String(err) })) }, logger);
  bridge.start();
  ctr.onReady(() => bridge.kick());
  // What interrupted operations left: their temporary snapshots (a commit's view of a container's init layer, a
  // layer being unpacked, an image's shared init layer before its commit, a per-container init layer of an earlier
  // berth), removed through the API before their leases go. Left to containerd's GC once the lease was gone, such a
  // snapshot stayed its parent's child (the fault suite saw 'cannot remove snapshot with child' on an init layer
  // whose snapshot list showed no child), and the container could never be removed.
  const transient = (k: string) => k.startsWith('berth-commit-view-') || k.startsWith('graphdriver-') || k.startsWith('extract-') || k.endsWith('-init-key') || /^berth-init2?\/.*-key-[0-9a-f]+$/.test(k);
  for (const key of await snapshotApi.keysMatching(ctr, SNAPSHOTTER, transient)) await snapshotApi.remove(ctr, SNAPSHOTTER, key).catch(() => undefined);
  const staleLeases = await releaseOperationLeases(ctr, ['berth-create', 'berth-init', 'berth-pull', 'berth-load', 'berth-import', 'berth-commit', 'berth-graphdriver']);
  if (staleLeases.length) logger.info('released the leases of interrupted operations', { leases: staleLeases });
  // enabled plugins run before containers are reconciled: a stopped container's plugin volumes are unmounted then
  if (pluginStateOnDisk(config.dataRoot) || (await leaseApi.ids(ctr)).some((id) => id.startsWith('berth-plugin-'))) await plugins().restore();
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
  const filesystem = new FilesystemService({
    ctr,
    find: (ref) => containers.find(ref),
    events,
    logger,
    execRoot: config.execRoot,
    exiting: (id) => containers.exiting(id),
    exitSettled: (id) => containers.exitSettled(id),
  });
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
  // Swarm mode (cluster/node) is loaded at the first swarm request, or at start when the data root holds swarm state.
  // Outside a swarm it has nothing to answer but the 406 of a node outside a swarm, no networks and no names.
  let swarmNode: SwarmNode | undefined;
  let swarmLoading: Promise<SwarmNode> | undefined;
  const swarm = (): Promise<SwarmNode> =>
    (swarmLoading ??= (require('./cluster/node') as typeof import('./cluster/node'))
      .startSwarmNode({ config, logger, containers, networks, networking, dns, registry })
      .then(
        (n) => (swarmNode = n),
        (err) => {
          swarmLoading = undefined;
          throw err;
        },
      ));
  const cluster = async () => (await swarm()).cluster;
  const swarmBackend: SwarmBackend = {
    init: async (req) => (await cluster()).init(req),
    join: async (req) => (await cluster()).join(req),
    leave: async (force) => (await cluster()).leave(force),
    inspect: async () => (await cluster()).inspect(),
    update: async (version, spec, rotate) => (await cluster()).update(version, spec, rotate),
    info: async () => swarmNode?.cluster.info(),
  };
  const nodesBackend: NodesBackend = {
    nodes: async (filters) => (await cluster()).nodes(filters),
    node: async (ref) => (await cluster()).node(ref),
    updateNode: async (ref, version, spec) => (await cluster()).updateNode(ref, version, spec),
    removeNode: async (ref, force) => (await cluster()).removeNode(ref, force),
    tasks: async (filters) => (await cluster()).tasks(filters),
    task: async (id) => (await cluster()).task(id),
  };
  const servicesBackend: ServicesBackend = {
    list: async (filters) => (await swarm()).services.list(filters),
    inspect: async (ref) => (await swarm()).services.inspect(ref),
    create: async (body, auth) => (await swarm()).services.create(body, auth),
    update: async (ref, version, body, auth) => (await swarm()).services.update(ref, version, body, auth),
    remove: async (ref) => (await swarm()).services.remove(ref),
  };
  const swarmNetworks: SwarmNetworkSource = {
    list: () => swarmNode?.networks.list() ?? [],
    refresh: async () => swarmNode?.networks.refresh(),
    create: async (req) => (await swarm()).networks.create(req),
    remove: async (id) => (await swarm()).networks.remove(id),
    driver: (id) => swarmNode?.networks.driver(id),
  };
  networks.setSwarmNetworks(swarmNetworks);
  if (swarmStateOnDisk(config.dataRoot)) await swarm();

  const save = new SaveService(ctr, images, events);
  const commit = new CommitService(ctr, images, containers, events);
  // The builder (builder/builder, the Dockerfile parser, COPY) is loaded at the first build; what a killed build left
  // is removed now.
  await removeBuildLeftovers({ ctr, dataRoot: config.dataRoot, containers });
  let buildService: BuildService | undefined;
  const builder = (): BuildService =>
    (buildService ??= new (require('./builder/builder') as typeof import('./builder/builder')).BuildService({ ctr, images, containers, commits: commit, registry, events, dataRoot: config.dataRoot, logger }));
  const buildBackend: BuildBackend = {
    prepare: (o, signal) => builder().prepare(o, signal),
    run: (b, out, signal) => builder().run(b as Parameters<BuildService['run']>[0], out, signal),
  };
  const pluginsBackend: PluginsBackend = {
    list: () => plugins().list(),
    find: (ref) => plugins().find(ref),
    privileges: (remote, creds) => plugins().privileges(remote, creds),
    pull: (remote, name, creds, accepted, progress) => plugins().pull(remote, name, creds, accepted, progress),
    enable: (ref) => plugins().enable(ref),
    disable: (ref) => plugins().disable(ref),
    remove: (ref) => plugins().remove(ref),
  };
  // express's router tries the routes in this order, a path match (a RegExp) each, until one matches: the routes of
  // every `docker run` (containers, exec, events) come right after the system's, ahead of some fifty swarm, build,
  // registry and image routes (no path of those groups is one of theirs; each group keeps its own order).
  const routes: Route[] = [...systemRoutes(system, () => infoSwarmSection(swarmBackend)), ...containerRoutes(containers, execs), ...execRoutes(execs), ...eventRoutes(events), ...swarmRoutes(swarmBackend), ...nodeRoutes(nodesBackend, async () => (await swarmNetworks.refresh(), swarmNetworks.list())), ...serviceRoutes(servicesBackend), ...buildRoutes(buildBackend), ...registryRoutes(registry), ...imageIoRoutes({ save: (names, start) => save.save(names, start), commit: (o) => commit.commit(o) }), ...imageRoutes(images), ...volumeRoutes(volumes), ...pluginRoutes(pluginsBackend), ...networkRoutes(networks, networking, containers), ...statsRoutes(new StatsService(ctr, store)), ...filesystemRoutes(filesystem)];

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
    (swarmNode ?? (await swarmLoading?.catch(() => undefined)))?.close();
    ctr.close();
  }
}
