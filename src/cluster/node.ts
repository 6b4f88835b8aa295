// This node's swarm mode, assembled: the membership (ClusterService), the task agent, the orchestrator, the routing
// mesh, the overlay datapath, and the swarm's networks and services. The daemon loads this module only when it is
// needed (docs/swarm.md, "Loaded when needed"): at start when the data root holds swarm state, else at the first
// swarm request. Nothing here runs before that; /info and /_ping never load it.
import * as fs from 'node:fs';
import * as os from 'node:os';
import type { Config } from '../config';
import type { Logger } from '../log';
import type { ContainerService } from '../services/containers';
import type { ContainerNetworking } from '../services/container-network';
import type { DnsService } from '../services/dns';
import type { NetworkService } from '../services/networks';
import type { RegistryService } from '../services/registry';
import { decodeAuthHeader } from '../translate/request/auth';
import { parseReference } from '../translate/reference';
import { BERTH_VERSION } from '../version';
import { NodeAgent } from './agent';
import { SwarmNetworks } from './networks';
import { Orchestrator } from './orchestrator';
import { OverlayNode } from './overlay';
import { DEFAULT_VXLAN_PORT } from './overlay-plan';
import { RoutingMesh } from './routing-mesh';
import { ClusterService } from './service';
import { SwarmServices } from './services';

export interface SwarmNodeDeps {
  config: Config;
  logger: Logger;
  containers: ContainerService;
  networks: NetworkService;
  networking: ContainerNetworking;
  dns: DnsService;
  registry: RegistryService;
}

export interface SwarmNode {
  cluster: ClusterService;
  networks: SwarmNetworks;
  services: SwarmServices;
  close(): void;
}

/** Builds this node's swarm mode, resumes a membership recorded on disk, and starts its workers. */
export async function startSwarmNode(d: SwarmNodeDeps): Promise<SwarmNode> {
  const { config, logger, containers, networks, networking, dns, registry } = d;
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
    devices: () => hardwareInterfaces(Object.keys(os.networkInterfaces())),
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
  dns.addSource(overlay);
  dns.setNatRules((id) => overlay.vipRules(id));
  const services = new SwarmServices({
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
  return {
    cluster,
    networks: swarmNetworks,
    services,
    close() {
      orchestrator.close();
      agent.close();
      mesh.close();
      overlay.close();
      cluster.close();
    },
  };
}

/**
 * The interfaces among `names` that are devices: sysfs places every virtual link (a bridge, a veth, a tunnel, the
 * loopback) under /sys/devices/virtual. The engine looks for links of no kind (netlink's "device"), the same set
 * but for the loopback, whose addresses it skips anyway.
 */
function hardwareInterfaces(names: string[]): ReadonlySet<string> {
  const out = new Set<string>();
  for (const n of names) {
    try {
      if (!fs.realpathSync(`/sys/class/net/${n}`).includes('/devices/virtual/')) out.add(n);
    } catch {
      /* gone */
    }
  }
  return out;
}
