// X-Registry-Auth: base64url JSON credentials, as the engine decodes them (a header it cannot read means none) — pure.
import type { Credentials } from '../../types/registry';

/** X-Registry-Auth: base64url (or base64) JSON with username/password/… or registrytoken; empty = anonymous. */
export function decodeAuthHeader(h: string | undefined): Credentials {
  if (!h) return {};
  try {
    const json = Buffer.from(h.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
    const o = JSON.parse(json) as Record<string, string>;
    return { username: o.username ?? o.Username, password: o.password ?? o.Password, identitytoken: o.identitytoken ?? o.IdentityToken, registrytoken: o.registrytoken ?? o.RegistryToken };
  } catch {
    return {};
  }
}
