// What berth listens on, decided before anything starts: host addresses (unix, tcp, fd:// from systemd), the TLS
// files, the socket group, and the refusal of an unauthenticated TCP listener (docs/operations.md). A refused
// configuration throws StartError: berthd prints its message and exits 1 with nothing started.
import * as fs from 'node:fs';
import type { Config } from '../config';

export class StartError extends Error {}

export type HostSpec = { kind: 'unix'; path: string } | { kind: 'tcp'; host: string; port: number } | { kind: 'fd'; fd?: number };

export function parseHost(h: string): HostSpec {
  if (h.startsWith('unix://')) return { kind: 'unix', path: h.slice('unix://'.length) };
  if (h.startsWith('/')) return { kind: 'unix', path: h };
  if (h.startsWith('fd://')) {
    const rest = h.slice('fd://'.length);
    if (rest === '') return { kind: 'fd' };
    if (/^\d+$/.test(rest)) return { kind: 'fd', fd: Number(rest) };
    throw new Error(`invalid host address: ${h}`);
  }
  const m = /^(?:tcp:\/\/)?(\[[^\]]*\]|[^:/]*)?:(\d+)\/?$/.exec(h);
  if (m) return { kind: 'tcp', host: (m[1] || '127.0.0.1').replace(/^\[|\]$/g, ''), port: Number(m[2]) };
  throw new Error(`invalid host address: ${h}`);
}

/** The engine's warnings for a TCP listener that does not verify its clients (logged at every start). */
export const INSECURE_TCP_WARNINGS = [
  'Binding to IP address without --tlsverify is insecure and gives root access on this machine to everyone who has access to your network.',
  'Binding to an IP address, even on localhost, can also give access to scripts run in a browser. Be safe out there!',
];

/**
 * Pure check of the hosts against the TLS settings. A tcp host needs --tlsverify, or an explicit --tls (encrypted,
 * any client) or --tls=false (plain): both then warn. Returns the warnings to log.
 */
export function checkHosts(config: Pick<Config, 'hosts' | 'tls' | 'tlsVerify'>): { specs: HostSpec[]; warnings: string[] } {
  const specs = config.hosts.map((h) => {
    try {
      return parseHost(h);
    } catch (err) {
      throw new StartError((err as Error).message);
    }
  });
  const warnings: string[] = [];
  for (let i = 0; i < specs.length; i++) {
    if (specs[i].kind !== 'tcp' || config.tlsVerify) continue;
    if (config.tls === undefined) {
      throw new StartError(
        `refusing to serve ${config.hosts[i]} without TLS: use --tlsverify (with --tlscacert, --tlscert and --tlskey), or pass --tls=false to accept an unauthenticated TCP listener`,
      );
    }
    for (const w of INSECURE_TCP_WARNINGS) warnings.push(`${w} host=${config.hosts[i]}`);
  }
  return { specs, warnings };
}

export interface TlsFiles {
  key: Buffer;
  cert: Buffer;
  /** Present with --tlsverify: the only trust root for client certificates. */
  ca?: Buffer;
  verify: boolean;
}

/** Reads the key pair (and the CA with --tlsverify), with the engine's messages when a file cannot be read. */
export function loadTlsFiles(config: Pick<Config, 'tls' | 'tlsVerify' | 'tlsCACert' | 'tlsCert' | 'tlsKey'>): TlsFiles | undefined {
  if (!config.tlsVerify && !config.tls) return undefined;
  let key: Buffer;
  let cert: Buffer;
  try {
    cert = fs.readFileSync(config.tlsCert);
    key = fs.readFileSync(config.tlsKey);
  } catch (err) {
    throw new StartError(`failed to create API server: Could not load X509 key pair (cert: "${config.tlsCert}", key: "${config.tlsKey}"): ${goFileError(err)}`);
  }
  if (!config.tlsVerify) return { key, cert, verify: false };
  try {
    return { key, cert, ca: fs.readFileSync(config.tlsCACert), verify: true };
  } catch (err) {
    throw new StartError(`failed to create API server: Could not read CA certificate "${config.tlsCACert}": ${goFileError(err)}`);
  }
}

function goFileError(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  const what = e.code === 'ENOENT' ? 'no such file or directory' : e.code === 'EACCES' ? 'permission denied' : e.code === 'EISDIR' ? 'is a directory' : e.message;
  return `open ${e.path ?? ''}: ${what}`;
}

/**
 * The unix sockets' group: `-G name|gid`; by default `docker` when that group exists, else root (gid 0, with a
 * warning, as the engine's). An explicit group that does not exist refuses the start.
 */
export function socketGroup(group: string | undefined, groupFile = '/etc/group'): { gid: number; warning?: string } {
  const name = group ?? 'docker';
  let gid: number | undefined;
  if (/^\d+$/.test(name)) gid = Number(name);
  else {
    let text = '';
    try {
      text = fs.readFileSync(groupFile, 'utf8');
    } catch {
      /* no group database: only numeric groups */
    }
    for (const line of text.split('\n')) {
      const f = line.split(':');
      if (f[0] === name && /^\d+$/.test(f[2] ?? '')) {
        gid = Number(f[2]);
        break;
      }
    }
  }
  if (gid !== undefined) return { gid };
  if (group !== undefined) throw new StartError(`group ${group} not found`);
  return { gid: 0, warning: 'could not change group of the API socket to docker: the group does not exist; the socket is root-only' };
}

/**
 * The sockets systemd passed (fds 3…, LISTEN_PID must be this process). The variables are removed afterwards, so
 * that children (containerd, etcd) never take the sockets as theirs.
 */
export function activatedFds(env: NodeJS.ProcessEnv = process.env, pid = process.pid): number[] {
  const n = env.LISTEN_PID === String(pid) ? Number(env.LISTEN_FDS ?? 0) : 0;
  delete env.LISTEN_PID;
  delete env.LISTEN_FDS;
  delete env.LISTEN_FDNAMES;
  return Array.from({ length: Number.isInteger(n) && n > 0 ? n : 0 }, (_, i) => 3 + i);
}

/** fd:// → every passed socket; fd://N → that one. */
export function fdsFor(spec: { fd?: number }, activated: number[]): number[] {
  if (activated.length === 0) throw new StartError('no sockets found via socket activation: make sure the service was started by systemd');
  if (spec.fd === undefined) return activated;
  if (!activated.includes(spec.fd)) throw new StartError(`fd ${spec.fd} was not passed by systemd (passed: ${activated.join(', ')})`);
  return [spec.fd];
}
