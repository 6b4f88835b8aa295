// Swarm service endpoints (docs/services.md): POST /services/create, GET /services (filters), GET /services/(id or
// name), POST /services/(id)/update?version=N, DELETE /services/(id).
import type { Route } from '../http/app';
import { invalidParameter } from '../errors';
import { queryFilters, queryString, readJSON } from '../http/query';
import { writeJSON, writeNoContent } from '../http/respond';
import type { ServiceRecord, Versioned } from '../types/swarm';
import { toServiceJSON } from '../translate/response/service';

export interface ServicesBackend {
  list(filters: Map<string, string[]>): Promise<Versioned<ServiceRecord>[]>;
  inspect(ref: string): Promise<Versioned<ServiceRecord>>;
  /** `body` is the decoded ServiceSpec, checked by the backend (it needs the cluster's names and ports). */
  /** `registryAuth`: the X-Registry-Auth header as sent (kept with the service for the nodes' pulls). */
  create(body: unknown, registryAuth?: string): Promise<{ id: string; warnings: string[] }>;
  update(ref: string, version: number, body: unknown, registryAuth?: string): Promise<{ warnings: string[] }>;
  remove(ref: string): Promise<void>;
}

/** A required JSON body (the reference's message for an empty one). */
async function specBody(req: Parameters<Route['handler']>[0]): Promise<unknown> {
  const body = await readJSON(req);
  if (body === undefined) throw invalidParameter('got EOF while reading request body');
  return body;
}

/** `version=N` of a service update: required, an unsigned integer. */
function serviceVersion(raw: string | undefined): number {
  const v = raw ?? '';
  if (!/^\d+$/.test(v)) throw invalidParameter(`invalid service version '${v}': strconv.ParseUint: parsing ${JSON.stringify(v)}: invalid syntax`);
  return Number(v);
}

export function serviceRoutes(services: ServicesBackend): Route[] {
  return [
    {
      method: 'get',
      path: '/services',
      handler: async (req, res) => writeJSON(res, 200, (await services.list(queryFilters(req))).map(toServiceJSON)),
    },
    {
      method: 'post',
      path: '/services/create',
      handler: async (req, res) => {
        // X-Registry-Auth (docker service create --with-registry-auth) is kept with the service: a node pulls the
        // task's image with it (never shown in inspect, as the reference's PullOptions)
        const r = await services.create(await specBody(req), req.header('x-registry-auth') || undefined);
        writeJSON(res, 201, { ID: r.id, Warnings: r.warnings });
      },
    },
    {
      method: 'get',
      path: '/services/:id',
      handler: async (req, res) => writeJSON(res, 200, toServiceJSON(await services.inspect(String(req.params.id)))),
    },
    {
      method: 'post',
      path: '/services/:id/update',
      handler: async (req, res) => {
        const body = await specBody(req);
        const version = serviceVersion(queryString(req, 'version'));
        const r = await services.update(String(req.params.id), version, body, req.header('x-registry-auth') || undefined);
        writeJSON(res, 200, { Warnings: r.warnings });
      },
    },
    {
      method: 'delete',
      path: '/services/:id',
      handler: async (req, res) => {
        await services.remove(String(req.params.id));
        writeNoContent(res, 200);
      },
    },
  ];
}
