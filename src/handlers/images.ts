// Local image endpoints: load, list, inspect, history, tag, remove.
import type { Route } from '../http/app';
import { param, queryBool, queryFilters, queryString } from '../http/query';
import { startJSONStream, writeJSON } from '../http/respond';
import { BerthError, invalidParameter, notFound } from '../errors';
import { ImageService, SNAPSHOTTER, ResolvedImage } from '../services/images';
import { familiarRepo, parseReference, withDefaultTag } from '../images/reference';
import { toImageHistory, toImageInspect, toImageSummary } from '../translate/response/images';
import { supports } from '../translate/version/features';

const NAME = (suffix: string) => new RegExp(`^/images/(?<name>.+)${suffix}$`);

function labelMatch(img: ResolvedImage, want: string[]): boolean {
  const labels: Record<string, string> = img.config.config?.Labels ?? {};
  return want.every((w) => {
    const i = w.indexOf('=');
    return i < 0 ? w in labels : labels[w.slice(0, i)] === w.slice(i + 1);
  });
}

/** The engine's glob match of a reference filter against one name (repo:tag or repo@digest) or its repository. */
function nameMatch(name: string, pattern: string): boolean {
  const re = new RegExp('^' + pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]') + '$');
  const at = name.indexOf('@');
  return re.test(name) || re.test(at >= 0 ? name.slice(0, at) : name.slice(0, name.lastIndexOf(':')));
}

/**
 * The image as a list filtered by reference shows it, or undefined when no name matches: like the engine, only the
 * names that match are listed (an image tagged a:1 and b:1 listed with filter=a shows RepoTags ["a:1"]).
 */
function referenceMatch(img: ResolvedImage, patterns: string[]): ResolvedImage | undefined {
  const keep = (n: string) => patterns.some((p) => nameMatch(n, p));
  const repoTags = img.repoTags.filter(keep);
  const repoDigests = img.repoDigests.filter(keep);
  return repoTags.length || repoDigests.length ? { ...img, repoTags, repoDigests } : undefined;
}

export function imageRoutes(images: ImageService): Route[] {
  return [
    {
      method: 'post',
      path: '/images/load',
      handler: async (req, res) => {
        const quiet = queryBool(req, 'quiet') || !supports(req.apiVersion, 'LoadProgressStream');
        const write = startJSONStream(res);
        try {
          await images.load(req, (msg) => write(msg), quiet);
        } catch (err) {
          const message = err instanceof Error ? err.message : String(err);
          write({ errorDetail: { message }, error: message });
        }
        res.end();
      },
    },
    {
      method: 'get',
      path: '/images/json',
      handler: async (req, res) => {
        const filters = queryFilters(req);
        for (const k of filters.keys()) if (!['dangling', 'label', 'reference', 'before', 'since'].includes(k)) throw invalidParameter(`Invalid filter '${k}'`);
        const dangling = filters.get('dangling');
        if (dangling?.some((d) => !['true', 'false', '1', '0'].includes(d.toLowerCase()))) throw invalidParameter(`Invalid filter 'dangling=${dangling[0]}'`);
        const name = queryString(req, 'filter');
        let list = await images.list();
        // Untagged images that others were committed from are intermediate: shown with all=1 only, never dangling.
        const parents = new Set(list.map((i) => i.parent).filter(Boolean));
        const intermediate = (i: ResolvedImage) => i.repoTags.length === 0 && i.repoDigests.length === 0 && parents.has(i.id);
        if (!queryBool(req, 'all')) list = list.filter((i) => !intermediate(i));
        if (dangling?.length) {
          const want = ['true', '1'].includes(dangling[0].toLowerCase());
          list = list.filter((i) => (i.repoTags.length === 0 && !parents.has(i.id)) === want);
        }
        const labels = filters.get('label');
        if (labels?.length) list = list.filter((i) => labelMatch(i, labels));
        const refs = [...(filters.get('reference') ?? []), ...(name ? [name] : [])];
        if (refs.length) list = list.flatMap((i) => referenceMatch(i, refs) ?? []);
        writeJSON(res, 200, list.map((i) => toImageSummary(i, req.apiVersion, queryBool(req, 'digests'))));
      },
    },
    {
      method: 'get',
      path: NAME('/json'),
      handler: async (req, res) => {
        const name = param(req, 'name');
        // The engine wraps the lookup's error with the name as given: "no such image: nope: No such image: nope:latest".
        const img = await images.resolve(name).catch((err: unknown) => {
          throw err instanceof BerthError && err.kind === 'NotFound' ? notFound(`no such image: ${name}: ${(err as Error).message}`) : err;
        });
        writeJSON(res, 200, toImageInspect(img, SNAPSHOTTER));
      },
    },
    {
      method: 'get',
      path: NAME('/history'),
      handler: async (req, res) => {
        const img = await images.resolve(param(req, "name"));
        writeJSON(res, 200, toImageHistory(img, { sizes: await images.layerSizes(img) }, req.apiVersion));
      },
    },
    {
      method: 'post',
      path: NAME('/tag'),
      handler: async (req, res) => {
        const img = await images.resolve(param(req, "name"));
        const repo = queryString(req, 'repo') ?? '';
        const tag = queryString(req, 'tag') ?? '';
        if (!repo) throw invalidParameter('repository name must have at least one component');
        const ref = parseReference(tag ? `${repo}:${tag}` : repo);
        if (ref.digest) throw invalidParameter('refusing to create a tag with a digest reference');
        await images.tag(img, withDefaultTag(ref));
        res.writeHead(201);
        res.end();
      },
    },
    {
      method: 'delete',
      path: NAME(''),
      handler: async (req, res) =>
        writeJSON(res, 200, await images.remove(param(req, "name"), { force: queryBool(req, 'force'), noprune: queryBool(req, 'noprune') })),
    },
  ];
}

export { familiarRepo };
