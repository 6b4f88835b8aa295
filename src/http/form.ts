// The routes whose handler, in the engine (20.10), starts with httputils.ParseForm: an invalid query (an invalid
// %-escape, a ';' separator) is answered there with a 400 and Go's message. The other routes read the query leniently
// and never see the pairs Go drops (translate/request/query.ts). Paths are after the version prefix.

type FormRoute = readonly [method: string, path: RegExp];

const NAME = '[^/].*'; // (mux's {name:.*}: the rest of the path, slashes included, before the route's suffix)

export const FORM_ROUTES: readonly FormRoute[] = [
  ['GET', /^\/containers\/json$/],
  ['GET', new RegExp(`^/containers/${NAME}/(top|logs|stats|attach/ws)$`)],
  ['POST', /^\/containers\/(create|prune)$/],
  ['POST', new RegExp(`^/containers/${NAME}/(kill|pause|unpause|restart|start|stop|wait|resize|attach|exec|rename|update)$`)],
  ['DELETE', new RegExp(`^/containers/${NAME}$`)],
  ['POST', new RegExp(`^/exec/${NAME}/(start|resize)$`)],
  ['POST', /^\/(commit|build\/prune)$/],
  ['GET', new RegExp(`^/distribution/${NAME}/json$`)],
  ['GET', /^\/images\/(json|search|get)$/],
  ['GET', new RegExp(`^/images/${NAME}/get$`)],
  ['POST', /^\/images\/(load|create|prune)$/],
  ['POST', new RegExp(`^/images/${NAME}/(push|tag)$`)],
  ['DELETE', new RegExp(`^/images/${NAME}$`)],
  ['GET', /^\/networks\/?$/],
  ['GET', /^\/networks\/.+$/],
  ['POST', /^\/networks\/(create|prune)$/],
  ['POST', /^\/networks\/.*\/(connect|disconnect)$/],
  ['DELETE', /^\/networks\/.*$/],
  ['GET', /^\/plugins(\/privileges)?$/],
  ['POST', /^\/plugins\/(pull|create)$/],
  ['POST', new RegExp(`^/plugins/${NAME}/(enable|disable|push|upgrade)$`)],
  ['DELETE', new RegExp(`^/plugins/${NAME}$`)],
  ['POST', /^\/swarm\/leave$/],
  ['GET', /^\/(services|nodes|tasks|secrets|configs|events|volumes)$/],
  ['GET', /^\/(services|tasks)\/[^/]+\/logs$/],
  ['DELETE', /^\/nodes\/[^/]+$/],
  ['GET', /^\/volumes\/.*$/],
  ['POST', /^\/volumes\/(create|prune)$/],
  ['DELETE', /^\/volumes\/.*$/],
];

/** Whether the engine's handler for this request parses its form first (and answers an invalid query with 400). */
export function parsesForm(method: string, path: string): boolean {
  return FORM_ROUTES.some(([m, p]) => m === method && p.test(path));
}

/** Go's maxFormSize: a urlencoded body longer than this is refused by ParseForm. */
export const MAX_FORM_BODY = 10 << 20;

/**
 * Whether ParseForm reads this request's body as a form too: a POST, PUT or PATCH with a urlencoded Content-Type
 * (its media type, case-insensitive, parameters ignored) and a body.
 */
export function wantsFormBody(method: string, headers: Record<string, string | string[] | undefined>): boolean {
  if (method !== 'POST' && method !== 'PUT' && method !== 'PATCH') return false;
  const ct = headers['content-type'];
  if (typeof ct !== 'string' || ct.split(';')[0].trim().toLowerCase() !== 'application/x-www-form-urlencoded') return false;
  const te = headers['transfer-encoding'];
  return (te !== undefined && te !== '') || Number(headers['content-length'] ?? 0) > 0;
}

/**
 * Reads a form body as ParseForm does: at most MAX_FORM_BODY bytes are kept; `tooLarge` when there are more (Go then
 * parses none of it). The rest is read and dropped, so the answer can still be written on the connection. The bytes
 * kept are returned either way, to be handed on to the handler.
 */
export async function readFormBody(body: AsyncIterable<Buffer>): Promise<{ bytes: Buffer; tooLarge: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of body) {
    if (size > MAX_FORM_BODY) continue;
    chunks.push(c);
    size += c.length;
  }
  return { bytes: Buffer.concat(chunks), tooLarge: size > MAX_FORM_BODY };
}
