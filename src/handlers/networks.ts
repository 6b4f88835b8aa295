// Network endpoints: list (filters per version), inspect, create, connect, disconnect, remove.
import type { Route } from '../http/app';
import { param, queryFilters, readJSON } from '../http/query';
import { writeJSON, writeNoContent } from '../http/respond';
import { BerthError, invalidParameter, isKind, systemError } from '../errors';
import type { ContainerService } from '../services/containers';
import type { CreateNetworkRequest, NetworkRecord, NetworkService } from '../services/networks';
import type { ContainerNetworking } from '../services/container-network';
import type { EndpointConfig } from '../store/containers';
import { NetworkEndpointView, toNetworkJSON } from '../translate/response/networks';
import { ApiVersion, supports } from '../translate/version/features';

function labelMatch(labels: Record<string, string>, want: string): boolean {
  const i = want.indexOf('=');
  return i < 0 ? want in labels : labels[want.slice(0, i)] === want.slice(i + 1);
}

export function networkRoutes(networks: NetworkService, networking: ContainerNetworking, containers: ContainerService): Route[] {
  const views = (n: NetworkRecord): NetworkEndpointView[] =>
    networking.endpointsOn(n.Id).map(({ rec, ep }) => ({ id: rec.Id, name: rec.Name.slice(1), endpointId: ep.endpointId ?? '', mac: ep.mac, ip: ep.ip, prefixLen: ep.prefixLen }));
  const show = (n: NetworkRecord, v: ApiVersion, inspect: boolean) => toNetworkJSON(n, v, views(n), inspect);
  /** Before 1.24 the spec lists no 403 for operations on predefined networks: the error is a server error. */
  const predefinedError = (err: unknown, v: ApiVersion): never => {
    if (isKind(err, 'Forbidden') && !supports(v, 'NetworkPredefined403') && /predefined|pre-defined/.test(err.message)) throw systemError(err.message);
    throw err;
  };
  return [
    {
      method: 'get',
      path: '/networks',
      handler: (req, res) => {
        const f = queryFilters(req);
        const allowed = supports(req.apiVersion, 'NetworkFilterDriverLabel') ? ['id', 'name', 'type', 'driver', 'label'] : ['id', 'name', 'type'];
        for (const k of f.keys()) if (!allowed.includes(k)) throw invalidParameter(`Invalid filter '${k}'`);
        let list = networks.list();
        const ids = f.get('id');
        if (ids?.length) list = list.filter((n) => ids.some((i) => n.Id.includes(i)));
        const names = f.get('name');
        if (names?.length) list = list.filter((n) => names.some((i) => n.Name.includes(i)));
        const types = f.get('type');
        if (types?.length) {
          for (const t of types) if (t !== 'custom' && t !== 'builtin') throw invalidParameter(`Invalid filter: 'type'='${t}'`);
          list = list.filter((n) => types.includes(n.Predefined ? 'builtin' : 'custom'));
        }
        const drivers = f.get('driver');
        if (drivers?.length) list = list.filter((n) => drivers.includes(n.Driver));
        const labels = f.get('label');
        if (labels?.length) list = list.filter((n) => labels.every((l) => labelMatch(n.Labels, l)));
        writeJSON(res, 200, list.map((n) => show(n, req.apiVersion, false)));
      },
    },
    { method: 'get', path: '/networks/:id', handler: (req, res) => writeJSON(res, 200, show(networks.find(param(req, 'id')), req.apiVersion, true)) },
    {
      method: 'post',
      path: '/networks/create',
      handler: async (req, res) => {
        const body = (await readJSON<CreateNetworkRequest>(req)) ?? {};
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
        const body = (await readJSON<{ Container?: string; EndpointConfig?: Partial<EndpointConfig> | null }>(req)) ?? {};
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
        const body = (await readJSON<{ Container?: string; Force?: boolean }>(req)) ?? {};
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
        await networks.remove(param(req, 'id')).catch((err: BerthError) => predefinedError(err, req.apiVersion));
        if (supports(req.apiVersion, 'NetworkDelete204')) writeNoContent(res);
        else res.status(200).end();
      },
    },
  ];
}
