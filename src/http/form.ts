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
