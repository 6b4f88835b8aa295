// Image archives and commit: GET /images/get?names=, GET /images/(name)/get (docker-save tarballs), POST /commit.
import type { Route } from '../http/app';
import { param, queryBool, queryString, queryStrings, readJSON } from '../http/query';
import { writeJSON } from '../http/respond';
import { invalidParameter } from '../errors';
import type { SaveService } from '../services/save';
import type { CommitService } from '../services/commit';
import type { ImageRunConfig } from '../translate/request/changes';

export function imageIoRoutes(save: SaveService, commit: CommitService): Route[] {
  const send = async (names: string[], res: import('express').Response) => {
    if (names.length === 0) throw invalidParameter('no images were requested');
    const wanted = await save.resolve(names);
    res.writeHead(200, { 'Content-Type': 'application/x-tar' });
    await save.write(wanted, res);
  };
  return [
    { method: 'get', path: '/images/get', handler: (req, res) => send(queryStrings(req, 'names').flatMap((n) => n.split(',')).filter(Boolean), res) },
    { method: 'get', path: /^\/images\/(?<name>.+)\/get$/, handler: (req, res) => send([param(req, 'name')], res) },
    {
      method: 'post',
      path: '/commit',
      handler: async (req, res) => {
        const config = (await readJSON<ImageRunConfig>(req)) ?? null;
        const id = await commit.commit({
          container: queryString(req, 'container') ?? '',
          repo: queryString(req, 'repo') || undefined,
          tag: queryString(req, 'tag') || undefined,
          comment: queryString(req, 'comment') || undefined,
          author: queryString(req, 'author') || undefined,
          pause: queryBool(req, 'pause', true),
          changes: queryStrings(req, 'changes'),
          config,
        });
        writeJSON(res, 201, { Id: id });
      },
    },
  ];
}
