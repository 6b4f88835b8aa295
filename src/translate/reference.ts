// Image references normalised the way the engine does (distribution/reference): `busybox` →
// docker.io/library/busybox:latest, `host:port/repo:tag`, `repo@sha256:…`, and back to the familiar form.
import { invalidParameter } from '../errors';

export interface Reference {
  domain: string; // docker.io, localhost:5000, ...
  path: string; // library/busybox
  tag?: string;
  digest?: string; // sha256:...
}

const DEFAULT_DOMAIN = 'docker.io';
const COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|[-]*)[a-z0-9]+)*$/;
const TAG = /^[\w][\w.-]{0,127}$/;
const DIGEST = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]{32,}$/;
const DOMAIN = /^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)(?:\.(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?))*(?::[0-9]+)?$|^\[[0-9a-fA-F:]+\](?::[0-9]+)?$/;
export const ID_PATTERN = /^(?:sha256:)?[a-f0-9]{64}$/;

export function isFullId(s: string): boolean {
  return ID_PATTERN.test(s);
}

/** Parses and normalises a reference; throws invalidParameter("invalid reference format…") like the engine. */
export function parseReference(s: string): Reference {
  if (!s) throw invalidParameter('invalid reference format');
  if (/^[a-f0-9]{64}$/.test(s)) throw invalidParameter(`invalid repository name (${s}), cannot specify 64-byte hexadecimal strings`);
  let rest = s;
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST.test(digest)) throw invalidParameter('invalid reference format');
  }
  let tag: string | undefined;
  const lastSlash = rest.lastIndexOf('/');
  const colon = rest.lastIndexOf(':');
  if (colon > lastSlash) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG.test(tag)) throw invalidParameter('invalid reference format');
  }
  let domain = DEFAULT_DOMAIN;
  let path = rest;
  const slash = rest.indexOf('/');
  if (slash >= 0) {
    const first = rest.slice(0, slash);
    if (first.includes('.') || first.includes(':') || first === 'localhost' || first !== first.toLowerCase()) {
      domain = first;
      path = rest.slice(slash + 1);
    }
  }
  if (!DOMAIN.test(domain)) throw invalidParameter('invalid reference format');
  if (domain === 'index.docker.io') domain = DEFAULT_DOMAIN;
  if (path !== path.toLowerCase()) throw invalidParameter('invalid reference format: repository name must be lowercase');
  if (!path || path.split('/').some((c) => !COMPONENT.test(c))) throw invalidParameter('invalid reference format');
  if (domain === DEFAULT_DOMAIN && !path.includes('/')) path = `library/${path}`;
  if (domain.length + 1 + path.length > 255) throw invalidParameter('repository name must not be more than 255 characters');
  return { domain, path, tag, digest };
}

/** With the default tag when neither tag nor digest is given. */
/** A reference with `tag` set (the engine's reference.WithTag): 400 `invalid tag format` for a tag it refuses. */
export function withTag(r: Reference, tag: string): Reference {
  if (!TAG.test(tag)) throw invalidParameter('invalid tag format');
  return { ...r, tag, digest: undefined };
}

/** The familiar names of stored image names; a name that does not parse (never stored by berth now) is left out. */
export function familiarNames(names: string[]): string[] {
  return names.flatMap((n) => {
    try {
      return [familiarName(parseReference(n))];
    } catch {
      return [];
    }
  });
}

export function withDefaultTag(r: Reference): Reference {
  return r.tag || r.digest ? r : { ...r, tag: 'latest' };
}

export function repoName(r: Reference): string {
  return `${r.domain}/${r.path}`;
}

/** Full form, as containerd image names: docker.io/library/busybox:latest, host/repo@sha256:... */
export function fullName(r: Reference): string {
  return repoName(r) + (r.tag ? `:${r.tag}` : '') + (r.digest ? `@${r.digest}` : '');
}

/** The familiar repository: busybox, user/app, localhost:5000/app. */
export function familiarRepo(r: Reference): string {
  if (r.domain !== DEFAULT_DOMAIN) return repoName(r);
  return r.path.startsWith('library/') && r.path.split('/').length === 2 ? r.path.slice('library/'.length) : r.path;
}

export function familiarName(r: Reference): string {
  return familiarRepo(r) + (r.tag ? `:${r.tag}` : '') + (r.digest ? `@${r.digest}` : '');
}

/** Normalised full name with the default tag: what berth stores as the containerd image name for a tag. */
export function normalizeTagged(s: string): string {
  return fullName(withDefaultTag(parseReference(s)));
}

/** The containerd name used for an image that has no tag (loaded by id, or after its last tag was removed). */
export function danglingName(imageId: string): string {
  return `berth.invalid/dangling@${imageId}`;
}

export function isDanglingName(name: string): boolean {
  return name.startsWith('berth.invalid/dangling@');
}
