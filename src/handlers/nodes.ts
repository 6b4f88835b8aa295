// Node and task endpoints of swarm mode: GET /nodes (filters), GET /nodes/(id or name), POST /nodes/(id)/update,
// DELETE /nodes/(id), GET /tasks (filters), GET /tasks/(id).
import type { Route } from '../http/app';
import { invalidParameter } from '../errors';
import { queryBool, queryFilters, queryString, readJSON } from '../http/query';
import { writeJSON, writeNoContent } from '../http/respond';
import type { NodeSpec, NodeView, TaskRecord, Versioned } from '../types/swarm';
import type { NetworkRecord } from '../types/network';
import { parseNodeSpec, parseVersion } from '../translate/request/swarm';
import { TLSInfoFacts, toNodeJSON } from '../translate/response/swarm';
import { toTaskJSON } from '../translate/response/service';

export interface NodesBackend {
  nodes(filters: Map<string, string[]>): Promise<{ views: NodeView[]; tls: TLSInfoFacts }>;
  node(ref: string): Promise<{ view: NodeView; tls: TLSInfoFacts }>;
  updateNode(ref: string, version: number, spec: NodeSpec): Promise<void>;
  removeNode(ref: string, force: boolean): Promise<void>;
  tasks(filters: Map<string, string[]>): Promise<Versioned<TaskRecord>[]>;
  task(id: string): Promise<Versioned<TaskRecord>>;
}

/** The swarm's overlay networks (a task's NetworksAttachments show them). */
export type SwarmNetworksLookup = () => Promise<NetworkRecord[]>;

export function nodeRoutes(cluster: NodesBackend, networks: SwarmNetworksLookup = async () => []): Route[] {
  return [
    {
      method: 'get',
      path: '/nodes',
      handler: async (req, res) => {
        const { views, tls } = await cluster.nodes(queryFilters(req));
        writeJSON(res, 200, views.map((v) => toNodeJSON(v, tls)));
      },
    },
    {
      method: 'get',
      path: '/nodes/:id',
      handler: async (req, res) => {
        const { view, tls } = await cluster.node(String(req.params.id));
        writeJSON(res, 200, toNodeJSON(view, tls));
      },
    },
    {
      method: 'post',
      path: '/nodes/:id/update',
      handler: async (req, res) => {
        // The reference decodes the body, then the version, then checks the spec.
        const body = await readJSON(req);
        if (body === undefined) throw invalidParameter('got EOF while reading request body');
        const version = parseVersion(queryString(req, 'version'), 'node');
        const spec = parseNodeSpec(body);
        await cluster.updateNode(String(req.params.id), version, spec);
        writeNoContent(res, 200);
      },
    },
    {
      method: 'delete',
      path: '/nodes/:id',
      handler: async (req, res) => {
        await cluster.removeNode(String(req.params.id), queryBool(req, 'force'));
        writeNoContent(res, 200);
      },
    },
    {
      method: 'get',
      path: '/tasks',
      handler: async (req, res) => {
        const tasks = await cluster.tasks(queryFilters(req));
        const nets = tasks.some((t) => t.value.networks?.length) ? await networks() : [];
        writeJSON(res, 200, tasks.map((t) => toTaskJSON(t, nets)));
      },
    },
    {
      method: 'get',
      path: '/tasks/:id',
      handler: async (req, res) => {
        const t = await cluster.task(String(req.params.id));
        writeJSON(res, 200, toTaskJSON(t, t.value.networks?.length ? await networks() : []));
      },
    },
  ];
}
