// Network endpoints: list (filters per version), inspect, create, connect, disconnect, remove.
import type { Route } from '../http/app';
import { param, queryFilters, readJSON } from '../http/query';
import { writeJSON, writeNoContent } from '../http/respond';
import { invalidParameter, isKind, systemError } from '../errors';
import { decodeNetworkConnect, decodeNetworkCreate, decodeNetworkDisconnect } from '../translate/request/bodies';
import { checkFilterKeys, filterNetworks, networkFilterKeys } from '../translate/filters';
import { NetworkEndpointView, toNetworkJSON } from '../translate/response/networks';
import { ApiVersion, supports } from '../translate/version/features';
import type { ContainerRecord } from '../types/container';
import type { CreateNetworkRequest, Endpoint, EndpointConfig, NetworkRecord } from '../types/network';

/** What the network routes need (services/networks, services/container-network, and the containers they name). */
export interface NetworksBackend {
  list(): NetworkRecord[];
  find(ref: string): NetworkRecord;
  /** Reads the swarm's networks again (another node may have made or removed one). */
  refresh(): Promise<void>;
  create(req: CreateNetworkRequest): Promise<{ id: string; warning: string }>;
}

export interface NetworkEndpointsBackend {
  endpointsOn(networkId: string): { rec: ContainerRecord; ep: Endpoint }[];
  connect(rec: ContainerRecord, net: NetworkRecord, cfg: { IPAMConfig?: EndpointConfig['IPAMConfig']; Aliases?: string[] | null; Links?: string[] | null }): Promise<void>;
  disconnect(rec: ContainerRecord, net: NetworkRecord): Promise<void>;
  /** Refused while containers have endpoints on it. */
  removeNetwork(ref: string): Promise<void>;
}

export interface ContainerLookup {
  find(ref: string): ContainerRecord;
}

export function networkRoutes(networks: NetworksBackend, networking: NetworkEndpointsBackend, containers: ContainerLookup): Route[] {
  const views = (n: NetworkRecord): NetworkEndpointView[] =>
    networking.endpointsOn(n.Id).map(({ rec, ep }) => ({ id: rec.Id, name: rec.Name.slice(1), endpointId: ep.endpointId ?? '', mac: ep.mac, ip: ep.ip, prefixLen: ep.prefixLen, ip6: ep.ip6, prefixLen6: ep.prefixLen6 }));
  const show = (n: NetworkRecord, v: ApiVersion, inspect: boolean) => toNetworkJSON(n, v, views(n), inspect);
  /** Before 1.24 the spec's Create lists no 403 for a predefined network's name: the error is a server error. */
  const predefinedError = (err: unknown, v: ApiVersion): never => {
    if (isKind(err, 'Forbidden') && !supports(v, 'NetworkPredefined403') && /predefined|pre-defined/.test(err.message)) throw systemError(err.message);
    throw err;
  };
  return [
    {
      method: 'get',
      path: '/networks',
      handler: async (req, res) => {
        const f = queryFilters(req);
        checkFilterKeys(f, networkFilterKeys(req.apiVersion));
        await networks.refresh();
        const list = filterNetworks(networks.list(), f);
        writeJSON(res, 200, list.map((n) => show(n, req.apiVersion, false)));
      },
    },
    {
      method: 'get',
      path: '/networks/:id',
      handler: async (req, res) => {
        await networks.refresh();
        writeJSON(res, 200, show(networks.find(param(req, 'id')), req.apiVersion, true));
      },
    },
    {
      method: 'post',
      path: '/networks/create',
      handler: async (req, res) => {
        const raw = await readJSON(req);
        if (raw === undefined) throw invalidParameter('got EOF while reading request body');
        const body = decodeNetworkCreate(raw) ?? {};
        if (!supports(req.apiVersion, 'NetworkIPv6Internal')) delete body.EnableIPv6;
        if (!supports(req.apiVersion, 'NetworkLabels')) delete body.Labels;
        const r = await networks.create(body).catch((err) => predefinedError(err, req.apiVersion));
        writeJSON(res, 201, { Id: r.id, Warning: r.warning });
      },
    },
    {
      method: 'post',
      path: '/networks/:id/connect',
      handler: async (req, res) => {
        await networks.refresh();
        const body = decodeNetworkConnect(await readJSON(req)) ?? {};
        const net = networks.find(param(req, 'id'));
        const rec = containers.find(body.Container ?? '');
        const ec = body.EndpointConfig ?? {};
        await networking.connect(rec, net, { IPAMConfig: ec.IPAMConfig ?? null, Aliases: ec.Aliases ?? null, Links: ec.Links ?? null });
        res.status(200).end();
      },
    },
    {
      method: 'post',
      path: '/networks/:id/disconnect',
      handler: async (req, res) => {
        const body = decodeNetworkDisconnect(await readJSON(req)) ?? {};
        const net = networks.find(param(req, 'id'));
        const rec = containers.find(body.Container ?? '');
        await networking.disconnect(rec, net);
        res.status(200).end();
      },
    },
    {
      method: 'delete',
      path: '/networks/:id',
      handler: async (req, res) => {
        // The spec's Remove lists "403 not supported for pre-defined networks" at every version (Create: since v1.24).
        await networks.refresh();
        await networking.removeNetwork(param(req, 'id'));
        if (supports(req.apiVersion, 'NetworkDelete200')) res.status(200).end();
        else writeNoContent(res);
      },
    },
  ];
}
