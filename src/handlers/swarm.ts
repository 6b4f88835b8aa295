// Swarm endpoints (docs/swarm.md): GET /swarm, POST /swarm/init|join|leave|update, and the Swarm section of GET
// /info; the node and task routes are in handlers/nodes.ts, the service routes in handlers/services.ts.
import type { Route, Handler } from '../http/app';
import { invalidParameter } from '../errors';
import { queryBool, queryString, readJSON } from '../http/query';
import { writeJSON, writeNoContent } from '../http/respond';
import type { ClusterRecord, SwarmInfo, SwarmSpec, Versioned } from '../types/swarm';
import { parseVersion } from '../translate/request/swarm';
import { TLSInfoFacts, toInfoSwarmJSON, toSwarmJSON } from '../translate/response/swarm';

export const NOT_MANAGER =
  'This node is not a swarm manager. Use "docker swarm init" or "docker swarm join" to connect this node to swarm and try again.';

export interface InitBody {
  ListenAddr?: string;
  AdvertiseAddr?: string;
  ForceNewCluster?: boolean;
  Spec?: SwarmSpec;
}

export interface JoinBody {
  ListenAddr?: string;
  AdvertiseAddr?: string;
  RemoteAddrs?: string[];
  JoinToken?: string;
}

export interface SwarmBackend {
  init(req: InitBody): Promise<string>;
  join(req: JoinBody): Promise<void>;
  leave(force: boolean): Promise<void>;
  inspect(): Promise<{ cluster: Versioned<ClusterRecord>; tls: TLSInfoFacts; tokens: { worker: string; manager: string } }>;
  update(version: number, spec: SwarmSpec | undefined, rotate: { worker: boolean; manager: boolean }): Promise<void>;
  info(): Promise<{ info: SwarmInfo; tls?: TLSInfoFacts } | undefined>;
}

/** A JSON object body, required (the reference's message for an empty one). */
async function objectBody<T>(req: Parameters<Handler>[0]): Promise<T> {
  const body = await readJSON<T>(req);
  if (body === undefined) throw invalidParameter('got EOF while reading request body');
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalidParameter('json: cannot unmarshal into a request object');
  return body;
}

export function swarmRoutes(swarm: SwarmBackend): Route[] {
  return [
    {
      method: 'get',
      path: '/swarm',
      handler: async (_req, res) => {
        const s = await swarm.inspect();
        writeJSON(res, 200, toSwarmJSON(s.cluster, s.tls, s.tokens));
      },
    },
    {
      method: 'post',
      path: '/swarm/init',
      handler: async (req, res) => {
        const body = await objectBody<InitBody>(req);
        writeJSON(res, 200, await swarm.init(body));
      },
    },
    {
      method: 'post',
      path: '/swarm/join',
      handler: async (req, res) => {
        const body = await objectBody<JoinBody>(req);
        await swarm.join(body);
        writeNoContent(res, 200);
      },
    },
    {
      method: 'post',
      path: '/swarm/leave',
      handler: async (req, res) => {
        await swarm.leave(queryBool(req, 'force'));
        writeNoContent(res, 200);
      },
    },
    {
      method: 'post',
      path: '/swarm/update',
      handler: async (req, res) => {
        const spec = await objectBody<SwarmSpec>(req);
        const version = parseVersion(queryString(req, 'version'), 'swarm');
        await swarm.update(version, spec, { worker: queryBool(req, 'rotateWorkerToken'), manager: queryBool(req, 'rotateManagerToken') });
        writeNoContent(res, 200);
      },
    },
  ];
}

/** GET /info's Swarm section for a node in a swarm (undefined: keep the inactive one). */
export async function infoSwarmSection(swarm: SwarmBackend): Promise<Record<string, unknown> | undefined> {
  const s = await swarm.info();
  return s && toInfoSwarmJSON(s.info, s.tls);
}

