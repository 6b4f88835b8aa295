// X-Registry-Auth and X-Registry-Config: base64url JSON credentials, as the engine decodes them (a header it cannot read means none) — pure.
import type { Credentials } from '../../types/registry';

/** A header's base64url (or base64) JSON; throws when it is not JSON. */
function decodeHeaderJSON(h: string): unknown {
  return JSON.parse(Buffer.from(h.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8'));
}

/** X-Registry-Auth: base64url (or base64) JSON with username/password/… or registrytoken; empty = anonymous. */
export function decodeAuthHeader(h: string | undefined): Credentials {
  if (!h) return {};
  try {
    const o = decodeHeaderJSON(h) as Record<string, string>;
    return { username: o.username ?? o.Username, password: o.password ?? o.Password, identitytoken: o.identitytoken ?? o.IdentityToken, registrytoken: o.registrytoken ?? o.RegistryToken };
  } catch {
    return {};
  }
}

/** X-Registry-Config (POST /build): base64url JSON of {registry: {username, password, ...}}; unreadable = none. */
export function decodeRegistryConfig(h: string | undefined): Record<string, Credentials> {
  if (!h) return {};
  try {
    const v = decodeHeaderJSON(h);
    return v && typeof v === 'object' ? (v as Record<string, Credentials>) : {};
  } catch {
    return {};
  }
}
