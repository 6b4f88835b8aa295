// Real local registries for pull/push tests: Debian's docker-registry on 127.0.0.1 (open, htpasswd basic auth,
// or token auth with a tiny token server here that signs ES256 JWTs the registry verifies against its cert).
import { execFileSync, spawn, ChildProcess } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

export interface TestRegistry {
  host: string; // 127.0.0.1:PORT
  dir: string;
  close(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}

async function waitHttp(url: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`registry at ${url} did not start`);
}

export interface RegistryOptions {
  htpasswd?: { user: string; password: string };
  token?: { user: string; password: string };
  /** The address to listen on (default 127.0.0.1). */
  ip?: string;
  /** Serve HTTPS with this certificate and key (PEM files). */
  tls?: { cert: string; key: string };
}

async function waitTcp(host: string, port: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise<boolean>((r) => {
      const s = net.connect(port, host, () => (s.destroy(), r(true)));
      s.on('error', () => r(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`registry at ${host}:${port} did not start`);
}

export async function startRegistry(o: RegistryOptions = {}): Promise<TestRegistry> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-reg-'));
  const port = await freePort();
  const ip = o.ip ?? '127.0.0.1';
  const lines = ['version: 0.1', 'storage:', '  filesystem:', `    rootdirectory: ${dir}/data`, '  delete:', '    enabled: true', 'http:', `  addr: ${ip}:${port}`, ...(o.tls ? ['  tls:', `    certificate: ${o.tls.cert}`, `    key: ${o.tls.key}`] : []), 'log:', '  level: error'];
  let tokenServer: http.Server | undefined;
  if (o.htpasswd) {
    execFileSync('htpasswd', ['-Bbc', `${dir}/htpasswd`, o.htpasswd.user, o.htpasswd.password], { stdio: 'ignore' });
    lines.push('auth:', '  htpasswd:', '    realm: berth-test', `    path: ${dir}/htpasswd`);
  }
  if (o.token) {
    const t = await startTokenServer(dir, o.token);
    tokenServer = t.server;
    lines.push('auth:', '  token:', `    realm: ${t.realm}`, '    service: berth-test-registry', '    issuer: berth-test-issuer', `    rootcertbundle: ${dir}/token.crt`);
  }
  fs.writeFileSync(`${dir}/config.yml`, lines.join('\n') + '\n');
  const child: ChildProcess = spawn('docker-registry', ['serve', `${dir}/config.yml`], { stdio: ['ignore', 'ignore', fs.openSync(`${dir}/log`, 'a')] });
  if (o.tls) await waitTcp(ip, port);
  else await waitHttp(`http://${ip}:${port}/v2/`);
  return {
    host: `${ip}:${port}`,
    dir,
    async close() {
      child.kill('SIGTERM');
      tokenServer?.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

/** A token endpoint: basic credentials in, an ES256 JWT with the requested access out. */
async function startTokenServer(dir: string, cred: { user: string; password: string }): Promise<{ server: http.Server; realm: string }> {
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', `${dir}/token.key`, '-out', `${dir}/token.crt`, '-days', '2', '-subj', '/CN=berth-test-token'], { stdio: 'ignore' });
  const key = crypto.createPrivateKey(fs.readFileSync(`${dir}/token.key`));
  const certDer = new crypto.X509Certificate(fs.readFileSync(`${dir}/token.crt`)).raw;
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const auth = req.headers.authorization ?? '';
    const [user, pass] = auth.startsWith('Basic ') ? Buffer.from(auth.slice(6), 'base64').toString().split(':') : ['', ''];
    const authed = user === cred.user && pass === cred.password;
    if (auth && !authed) {
      res.writeHead(401, { 'Content-Type': 'application/json' }).end('{"details":"incorrect username or password"}');
      return;
    }
    const access = authed
      ? u.searchParams
          .getAll('scope')
          .flatMap((s) => s.split(' '))
          .filter(Boolean)
          .map((s) => {
            const [type, name, actions] = s.split(':');
            return { type, name, actions: actions.split(',') };
          })
      : [];
    const now = Math.floor(Date.now() / 1000);
    const header = { alg: 'ES256', typ: 'JWT', x5c: [certDer.toString('base64')] };
    const claims = { iss: 'berth-test-issuer', sub: user, aud: u.searchParams.get('service'), exp: now + 300, nbf: now - 10, iat: now, jti: crypto.randomBytes(8).toString('hex'), access };
    const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
    const sig = crypto.sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' });
    const token = `${input}.${b64url(sig)}`;
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ token, access_token: token, expires_in: 300 }));
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  return { server, realm: `http://127.0.0.1:${port}/token` };
}
