// Plugin endpoints (API 1.24, experimental in the spec). The spec's routes — GET /plugins, GET /plugins/(name),
// POST /plugins/pull?name= (installs, answers the privileges), enable, disable, DELETE — with the spec's Plugin
// object and status codes; also the forms the 20.10 reference serves at 1.24: GET /plugins/(name)/json,
// GET /plugins/privileges?remote= and POST /plugins/pull?remote=&name= with the accepted privileges as body
// (a progress stream).
import type { Response } from 'express';
import type { Route } from '../http/app';
import { param, queryString, readJSON } from '../http/query';
import { startJSONStream, writeJSON, writeText } from '../http/respond';
import { asBerthError, invalidParameter, isKind } from '../errors';
import { decodeAuthHeader } from '../translate/request/auth';
import type { Credentials } from '../types/registry';
import type { PluginPrivilege, PluginRecord } from '../types/plugin';
import { toPluginJSON } from '../translate/plugins';

/** What the plugin routes need (plugins/service). */
export interface PluginsBackend {
  list(): PluginRecord[];
  find(ref: string): PluginRecord;
  privileges(remote: string, creds: Credentials): Promise<PluginPrivilege[]>;
  pull(remote: string, localName: string | undefined, creds: Credentials, accepted: PluginPrivilege[] | undefined, progress: (m: Record<string, unknown>) => void): Promise<PluginPrivilege[]>;
  enable(ref: string): Promise<void>;
  disable(ref: string): Promise<void>;
  remove(ref: string): Promise<void>;
}

const NAMED = (suffix: string) => new RegExp(`^/plugins/(?<name>.+)${suffix}$`);

/** The empty 200 the spec gives enable, disable and remove. */
function ok(res: Response): void {
  writeText(res, 200, '');
}

export function pluginRoutes(plugins: PluginsBackend): Route[] {
  /** `x/json` is the reference's inspect path; a plugin really called `x/json` wins. */
  const inspect = (name: string): PluginRecord => {
    try {
      return plugins.find(name);
    } catch (err) {
      if (isKind(err, 'NotFound') && name.endsWith('/json')) return plugins.find(name.slice(0, -5));
      throw err;
    }
  };
  return [
    { method: 'get', path: '/plugins', handler: (_req, res) => writeJSON(res, 200, plugins.list().map(toPluginJSON)) },
    {
      method: 'get',
      path: '/plugins/privileges',
      handler: async (req, res) => {
        const remote = queryString(req, 'remote') ?? '';
        writeJSON(res, 200, await plugins.privileges(remote, decodeAuthHeader(req.header('x-registry-auth'))));
      },
    },
    {
      method: 'post',
      path: '/plugins/pull',
      handler: async (req, res) => {
        const creds = decodeAuthHeader(req.header('x-registry-auth'));
        const remote = queryString(req, 'remote');
        if (remote === undefined) {
          // the spec's form: name= is the remote reference; the answer is what the plugin asks for
          const name = queryString(req, 'name');
          if (!name) throw invalidParameter('invalid reference format');
          writeJSON(res, 200, await plugins.pull(name, undefined, creds, undefined, () => undefined));
          return;
        }
        // the reference's form: the accepted privileges as body, a progress stream
        const accepted = await readJSON<PluginPrivilege[]>(req).catch(() => undefined);
        if (!Array.isArray(accepted)) throw invalidParameter('failed to parse privileges: EOF');
        let write: ((o: unknown) => boolean) | undefined;
        const progress = (m: Record<string, unknown>) => (write ??= startJSONStream(res))(m);
        try {
          await plugins.pull(remote, queryString(req, 'name') || undefined, creds, accepted, progress);
        } catch (err) {
          if (!write) throw err;
          const message = asBerthError(err).message;
          write({ errorDetail: { message }, error: message });
        }
        if (!write) write = startJSONStream(res);
        res.end();
      },
    },
    { method: 'post', path: NAMED('/enable'), handler: async (req, res) => {
        const t = queryString(req, 'timeout');
        if (t !== undefined && t !== '' && !/^-?\d+$/.test(t)) throw invalidParameter(`strconv.Atoi: parsing "${t}": invalid syntax`);
        await plugins.enable(param(req, 'name'));
        ok(res);
      } },
    { method: 'post', path: NAMED('/disable'), handler: async (req, res) => {
        await plugins.disable(param(req, 'name'));
        ok(res);
      } },
    { method: 'get', path: NAMED(''), handler: (req, res) => writeJSON(res, 200, toPluginJSON(inspect(param(req, 'name')))) },
    { method: 'delete', path: NAMED(''), handler: async (req, res) => {
        await plugins.remove(param(req, 'name'));
        ok(res);
      } },
  ];
}
