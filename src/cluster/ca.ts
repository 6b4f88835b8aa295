// The cluster's certificate authority: a root key and certificate made at init, node certificates signed from a
// node's CSR, the CA's digest for join tokens, and the tokens themselves. Keys are ECDSA P-256 (Node's crypto);
// certificates are made by openssl, which signs and encodes X.509 better than hand-written code would.
import { execFile } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { invalidParameter } from '../errors';

const TOKEN_PREFIX = 'SWMTKN';
const TOKEN_VERSION = '1';

function run(args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('openssl', args, { cwd, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err) reject(new Error(`openssl ${args[0]}: ${stderr.trim() || err.message}`));
      else resolve(stdout);
    });
  });
}

async function inScratch<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-ca-'));
  try {
    return await fn(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export function newKey(): string {
  const { privateKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

/** A random identifier like the reference's: 128 bits in base 36, 25 characters. */
export function newId(): string {
  return BigInt('0x' + crypto.randomBytes(16).toString('hex')).toString(36).padStart(25, '0');
}

// PrintableString subjects, as the reference's CA writes them (openssl's default mask would make UTF8Strings).
const REQ_CONFIG = ['[req]', 'distinguished_name = dn', 'string_mask = default', 'prompt = no', '[dn]', ''].join('\n');

/** The root: key and self-signed certificate, CN swarm-ca, 20 years. */
export async function createRootCA(): Promise<{ cert: string; key: string }> {
  const key = newKey();
  const cert = await inScratch(async (dir) => {
    fs.writeFileSync(path.join(dir, 'ca.key'), key, { mode: 0o600 });
    fs.writeFileSync(path.join(dir, 'req.cnf'), REQ_CONFIG + 'CN = swarm-ca\n[ext]\nbasicConstraints = critical,CA:TRUE\nkeyUsage = critical,keyCertSign,cRLSign\nsubjectKeyIdentifier = hash\n');
    return run(['req', '-x509', '-new', '-key', 'ca.key', '-config', 'req.cnf', '-extensions', 'ext', '-days', '7300', '-sha256'], dir);
  });
  return { cert, key };
}

/** A CSR for a node's key (the signer decides the subject; the CSR proves the key). */
export async function createCSR(key: string): Promise<string> {
  return inScratch(async (dir) => {
    fs.writeFileSync(path.join(dir, 'node.key'), key, { mode: 0o600 });
    fs.writeFileSync(path.join(dir, 'req.cnf'), REQ_CONFIG + 'CN = swarm-node\n');
    return run(['req', '-new', '-key', 'node.key', '-config', 'req.cnf', '-sha256'], dir);
  });
}

export interface NodeCertRequest {
  csr: string;
  nodeId: string;
  clusterId: string;
  role: 'worker' | 'manager';
  ip: string;
  /** Lifetime in seconds (CAConfig.NodeCertExpiry). */
  expirySec: number;
}

/** openssl's GeneralizedTime form of a time. */
const asn1Time = (ms: number): string => new Date(ms).toISOString().replace(/[-:T]/g, '').replace(/\.\d+Z$/, 'Z');

// `openssl ca` (not `x509 -req`, whose lifetime is in whole days) signs with exact start and end dates.
const CA_CONFIG = [
  '[ca]', 'default_ca = swarm',
  '[swarm]', 'database = index.txt', 'new_certs_dir = .', 'serial = serial', 'policy = any', 'unique_subject = no',
  'copy_extensions = none', 'default_md = sha256', 'email_in_dn = no', 'string_mask = default',
  '[any]', 'organizationName = optional', 'organizationalUnitName = optional', 'commonName = optional', '',
].join('\n');

/**
 * Signs a node certificate: CN the node id, OU swarm-<role>, O the cluster id (the reference's subject), SAN the
 * node's IP (etcd's peers and clients check it) and localhost, usable as a TLS server and client.
 */
export async function signNodeCert(ca: { cert: string; key: string }, r: NodeCertRequest): Promise<string> {
  if (!/^[0-9a-z]+$/.test(r.nodeId) || !/^[0-9a-z]+$/.test(r.clusterId)) throw invalidParameter('invalid node or cluster id');
  return inScratch(async (dir) => {
    fs.writeFileSync(path.join(dir, 'ca.crt'), ca.cert);
    fs.writeFileSync(path.join(dir, 'ca.key'), ca.key, { mode: 0o600 });
    fs.writeFileSync(path.join(dir, 'node.csr'), r.csr);
    const san = [`IP:${r.ip}`, 'IP:127.0.0.1', 'DNS:localhost', `DNS:${r.nodeId}`].join(',');
    fs.writeFileSync(path.join(dir, 'ext.cnf'), `basicConstraints = critical,CA:FALSE\nkeyUsage = critical,digitalSignature,keyEncipherment\nextendedKeyUsage = serverAuth,clientAuth\nsubjectAltName = ${san}\n`);
    fs.writeFileSync(path.join(dir, 'ca.cnf'), CA_CONFIG);
    fs.writeFileSync(path.join(dir, 'index.txt'), '');
    fs.writeFileSync(path.join(dir, 'serial'), crypto.randomBytes(16).toString('hex') + '\n');
    const now = Date.now();
    // -subj replaces the CSR's subject: the CA names the node.
    await run(['ca', '-batch', '-config', 'ca.cnf', '-cert', 'ca.crt', '-keyfile', 'ca.key', '-in', 'node.csr', '-out', 'node.crt', '-notext', '-startdate', asn1Time(now), '-enddate', asn1Time(now + Math.max(1, r.expirySec) * 1000), '-subj', `/O=${r.clusterId}/OU=swarm-${r.role}/CN=${r.nodeId}`, '-preserveDN', '-extfile', 'ext.cnf'], dir);
    return fs.readFileSync(path.join(dir, 'node.crt'), 'utf8');
  });
}

/** SHA-256 of the certificate's DER in base 36, 50 characters: the token's digest part. */
export function caDigest(certPem: string): string {
  const der = new crypto.X509Certificate(certPem).raw;
  const hex = crypto.createHash('sha256').update(der).digest('hex');
  return BigInt('0x' + hex).toString(36).padStart(50, '0');
}

export function newSecret(): string {
  return BigInt('0x' + crypto.randomBytes(16).toString('hex')).toString(36).padStart(25, '0').slice(-25);
}

export function joinToken(caCert: string, secret: string): string {
  return `${TOKEN_PREFIX}-${TOKEN_VERSION}-${caDigest(caCert)}-${secret}`;
}

/** Splits a join token; anything not of the form answers the reference's "invalid join token". */
export function parseJoinToken(token: string): { digest: string; secret: string } {
  const parts = token.split('-');
  if (parts.length !== 4 || parts[0] !== TOKEN_PREFIX || parts[1] !== TOKEN_VERSION || !/^[0-9a-z]{50}$/.test(parts[2]) || !/^[0-9a-z]{25}$/.test(parts[3])) {
    throw invalidParameter('invalid join token');
  }
  return { digest: parts[2], secret: parts[3] };
}

/** Constant-time comparison of two secrets. */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

/** The DER of a certificate's issuer Name and its SubjectPublicKeyInfo, base64 (TLSInfo's two fields). */
export function tlsInfoOf(certPem: string): { subject: string; publicKey: string } {
  const x = new crypto.X509Certificate(certPem);
  return { subject: issuerDER(x.raw).toString('base64'), publicKey: x.publicKey.export({ type: 'spki', format: 'der' }).toString('base64') };
}

/** Reads one DER element at `off`: its header length and total length. */
function derElement(buf: Buffer, off: number): { start: number; end: number } {
  let len = buf[off + 1];
  let hdr = 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + buf[off + 2 + i];
    hdr += n;
  }
  return { start: off + hdr, end: off + hdr + len };
}

/** Certificate → tbsCertificate → [version] serial signature issuer: the issuer Name's bytes. */
function issuerDER(der: Buffer): Buffer {
  const tbs = derElement(der, derElement(der, 0).start);
  let off = tbs.start;
  if (der[off] === 0xa0) off = derElement(der, off).end; // explicit version
  off = derElement(der, off).end; // serial
  off = derElement(der, off).end; // signature algorithm
  return der.subarray(off, derElement(der, off).end);
}
