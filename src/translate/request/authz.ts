// The AuthZ protocol's pure parts (docs/authz.md): Go's canonical header names, the rule for which bodies a plugin
// sees, and the wire JSON the engine sends (Go's encoding of authorization.Request: base64 bytes, empties omitted).
import type { AuthzRequest } from '../../types/authz';

/** A request body is sent up to this size (exclusive), as the engine's maxBodyLength. */
export const MAX_AUTHZ_BODY = 1 << 20;

/** Go's textproto.CanonicalMIMEHeaderKey: `content-type` → `Content-Type` (a key with other bytes stays as it is). */
export function canonicalHeaderKey(k: string): string {
  if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(k)) return k;
  return k
    .split('-')
    .map((p) => (p ? p[0].toUpperCase() + p.slice(1).toLowerCase() : p))
    .join('-');
}

/**
 * Each header's first value under its canonical name, from node's raw header list (name, value, name, value …).
 * Host and Transfer-Encoding are not headers in Go's server (r.Host, r.TransferEncoding), so the engine never sends them.
 */
export function firstHeaderValues(raw: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const k = canonicalHeaderKey(raw[i]);
    if (k === 'Host' || k === 'Transfer-Encoding') continue;
    if (!Object.hasOwn(out, k)) out[k] = raw[i + 1];
  }
  return out;
}

/** A response's headers (node's getHeaders(): lower-case names, numbers or lists as values) by canonical name. */
export function responseHeaderValues(headers: Record<string, number | string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) continue;
    out[canonicalHeaderKey(k)] = Array.isArray(v) ? String(v[0] ?? '') : String(v);
  }
  return out;
}

/** The media type of a Content-Type value (lower case, parameters dropped); '' when there is none. */
function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

/** The engine's sendBody: JSON bodies only, and never the body of `/auth` (credentials). */
export function sendsBody(uri: string, contentType: string | undefined): boolean {
  if (uri.endsWith('/auth')) return false;
  return mediaType(contentType) === 'application/json';
}

/** Whether the request's body goes to the plugins: sendsBody, with a declared length over 0 and under 1 MiB. */
export function sendsRequestBody(uri: string, contentType: string | undefined, contentLength: string | undefined): boolean {
  const n = Number(contentLength ?? '');
  return sendsBody(uri, contentType) && Number.isInteger(n) && n > 0 && n < MAX_AUTHZ_BODY;
}

/** The JSON a plugin receives: Go's field names and order, []byte as base64, empty fields left out. */
export function toAuthzWire(r: AuthzRequest): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const put = (k: string, v: unknown) => {
    if (v === undefined || v === '' || v === 0) return;
    if (Buffer.isBuffer(v)) {
      if (v.length) out[k] = v.toString('base64');
      return;
    }
    if (typeof v === 'object' && v !== null && !Array.isArray(v) && !Object.keys(v).length) return;
    out[k] = v;
  };
  put('User', r.User);
  put('UserAuthNMethod', r.UserAuthNMethod);
  put('RequestMethod', r.RequestMethod);
  put('RequestUri', r.RequestUri);
  put('RequestBody', r.RequestBody);
  put('RequestHeaders', r.RequestHeaders);
  // the engine's PeerCertificate marshals as the PEM text's bytes (base64 in the JSON)
  if (r.RequestPeerCertificates?.length) out.RequestPeerCertificates = r.RequestPeerCertificates.map((der) => Buffer.from(toPem(der)).toString('base64'));
  put('ResponseBody', r.ResponseBody);
  put('ResponseHeaders', r.ResponseHeaders);
  put('ResponseStatusCode', r.ResponseStatusCode);
  return out;
}

function toPem(der: Buffer): string {
  const b64 = der.toString('base64').replace(/(.{64})/g, '$1\n');
  return `-----BEGIN CERTIFICATE-----\n${b64}${b64.endsWith('\n') ? '' : '\n'}-----END CERTIFICATE-----\n`;
}
