// The API's listeners as an operator sets them up (docs/operations.md): TLS with client certificates checked in the
// handshake, the refusal of an unauthenticated TCP listener, the unix socket's group and mode with no window, and
// systemd socket activation. Certificates are made here with openssl. Drives the real bin/berthd (needs the build).
import { execFile, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as https from 'node:https';
import * as os from 'node:os';
import * as path from 'node:path';
import { request } from '../helpers/berth';
import { berthdLauncher } from '../helpers/berthd-process';
import { freePort } from '../helpers/registry';
import { socketGroup } from '../../src/http/listeners';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-sec-'));
const namespace = `berth-sec-${process.pid}`;
const { berthd, stop, exited, cleanup } = berthdLauncher({ dir, namespace, bridge: `bsec${process.pid % 10000}`, subnet: '10.251.77.0/24' });

const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });

/** A CA in `name`/ca.pem and a certificate it signed for `usage` (serverAuth for 127.0.0.1, or clientAuth). */
function makeCA(name: string): void {
  fs.mkdirSync(path.join(dir, name));
  openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', `${name}/ca-key.pem`, '-out', `${name}/ca.pem`, '-days', '2', '-subj', `/CN=${name}`);
}
function makeCert(ca: string, out: string, usage: 'serverAuth' | 'clientAuth'): void {
  fs.mkdirSync(path.join(dir, out), { recursive: true });
  const ext = path.join(dir, `${out}.ext`);
  fs.writeFileSync(ext, usage === 'serverAuth' ? 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' : 'extendedKeyUsage=clientAuth\n');
  openssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', `${out}/key.pem`, '-out', `${out}/req.csr`, '-subj', `/CN=${usage === 'serverAuth' ? '127.0.0.1' : 'client'}`);
  openssl('x509', '-req', '-in', `${out}/req.csr`, '-CA', `${ca}/ca.pem`, '-CAkey', `${ca}/ca-key.pem`, '-CAcreateserial', '-out', `${out}/cert.pem`, '-days', '2', '-extfile', ext);
}

function docker(args: string[], env: NodeJS.ProcessEnv): Promise<{ stdout: string; stderr: string; code: number }> {
  return new Promise((resolve) => {
    const e: NodeJS.ProcessEnv = { ...process.env, DOCKER_CONFIG: path.join(dir, 'docker-config'), ...env };
    delete e.DOCKER_API_VERSION;
    execFile('/usr/bin/docker', args, { env: e, timeout: 30_000, encoding: 'utf8' }, (err, stdout, stderr) => resolve({ stdout, stderr, code: err ? ((err as { code?: number }).code ?? 1) : 0 }));
  });
}

beforeAll(() => {
  makeCA('ca');
  makeCA('other-ca');
  makeCert('ca', 'server', 'serverAuth');
  makeCert('ca', 'client', 'clientAuth');
  makeCert('other-ca', 'stranger', 'clientAuth');
  // The docker CLI reads ca.pem, cert.pem and key.pem from DOCKER_CERT_PATH: the client trusts our CA for the server.
  fs.copyFileSync(path.join(dir, 'ca/ca.pem'), path.join(dir, 'client/ca.pem'));
  fs.copyFileSync(path.join(dir, 'ca/ca.pem'), path.join(dir, 'stranger/ca.pem'));
});

afterAll(cleanup);

test('a TCP listener without TLS is refused at start unless --tls=false, which warns at every start', async () => {
  const port = await freePort();
  const refused = await berthd(['-H', `tcp://127.0.0.1:${port}`]);
  expect(await exited(refused.child)).toBe(1);
  expect(refused.log()).toContain(`berthd: refusing to serve tcp://127.0.0.1:${port} without TLS: use --tlsverify (with --tlscacert, --tlscert and --tlskey), or pass --tls=false to accept an unauthenticated TCP listener`);

  const socket = path.join(dir, 'plain.sock');
  const insecure = await berthd(['-H', `unix://${socket}`, '-H', `tcp://127.0.0.1:${port}`, '--tls=false'], { socket });
  const r = await fetch(`http://127.0.0.1:${port}/_ping`);
  expect([r.status, await r.text()]).toEqual([200, 'OK']);
  expect(insecure.log()).toContain('Binding to IP address without --tlsverify is insecure and gives root access on this machine to everyone who has access to your network.');
  await stop(insecure);
});

test('--tlsverify: the docker CLI with DOCKER_TLS_VERIFY and DOCKER_CERT_PATH works; no certificate or another CA is refused in the handshake', async () => {
  const port = await freePort();
  const socket = path.join(dir, 'tls.sock');
  const b = await berthd(['-H', `unix://${socket}`, '-H', `tcp://127.0.0.1:${port}`, '--tlsverify', '--tlscacert', path.join(dir, 'ca/ca.pem'), '--tlscert', path.join(dir, 'server/cert.pem'), '--tlskey', path.join(dir, 'server/key.pem')], { socket });
  const host = `tcp://127.0.0.1:${port}`;
  const ok = await docker(['version', '--format', '{{.Server.APIVersion}}'], { DOCKER_HOST: host, DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: path.join(dir, 'client') });
  expect(ok).toMatchObject({ code: 0, stdout: '1.24\n' });
  const info = await docker(['info', '--format', '{{.ID}}'], { DOCKER_HOST: host, DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: path.join(dir, 'client') });
  expect(info.code).toBe(0);
  expect(info.stdout.trim()).toBe((await request(socket, 'GET', '/v1.24/info')).json().ID);

  // A certificate from another CA: the server refuses it (the CLI reports the handshake's alert).
  const stranger = await docker(['version', '--format', '{{.Server.APIVersion}}'], { DOCKER_HOST: host, DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: path.join(dir, 'stranger') });
  expect(stranger.code).not.toBe(0);
  expect(stranger.stderr).toMatch(/bad certificate|unknown certificate authority|certificate required/);

  // No client certificate: the connection ends in the handshake, before any HTTP answer.
  const ca = fs.readFileSync(path.join(dir, 'ca/ca.pem'));
  const noCert = await new Promise<string>((resolve) => {
    const req = https.get({ host: '127.0.0.1', port, path: '/_ping', ca }, (res) => resolve(`answered ${res.statusCode}`));
    req.on('error', (err: NodeJS.ErrnoException) => resolve(`${err.code ?? ''} ${err.message}`));
  });
  expect(noCert).not.toMatch(/^answered/);
  expect(noCert).toMatch(/certificate required|ECONNRESET|handshake|socket hang up/i);
  // Plain HTTP on the TLS port gets no API answer either.
  const plain = await fetch(`http://127.0.0.1:${port}/_ping`).then((r) => r.status, () => 0);
  expect(plain).not.toBe(200);

  // With the right client certificate, a plain https client is served too.
  const served = await new Promise<number | undefined>((resolve, reject) => {
    https.get({ host: '127.0.0.1', port, path: '/_ping', ca, cert: fs.readFileSync(path.join(dir, 'client/cert.pem')), key: fs.readFileSync(path.join(dir, 'client/key.pem')) }, (res) => resolve(res.statusCode)).on('error', reject);
  });
  expect(served).toBe(200);
  await stop(b);
});

test('certificates that cannot be read refuse the start with the engine\'s message', async () => {
  const port = await freePort();
  const b = await berthd(['-H', `tcp://127.0.0.1:${port}`, '--tlsverify', '--tlscert', path.join(dir, 'nope.pem'), '--tlskey', path.join(dir, 'server/key.pem')]);
  expect(await exited(b.child)).toBe(1);
  expect(b.log()).toContain(`berthd: failed to create API server: Could not load X509 key pair (cert: "${path.join(dir, 'nope.pem')}", key: "${path.join(dir, 'server/key.pem')}"): open ${path.join(dir, 'nope.pem')}: no such file or directory`);
});

test('the unix socket: mode 0660 in the docker group (or root), never reachable with another mode; --group', async () => {
  const socket = path.join(dir, 'grp.sock');
  fs.writeFileSync(socket, 'stale'); // a stale file is replaced by the finished socket
  const seen = new Set<string>();
  let watching = true;
  const watch = (async () => {
    while (watching) {
      try {
        const st = fs.lstatSync(socket);
        seen.add(`${st.isSocket() ? 'socket' : 'file'} ${(st.mode & 0o7777).toString(8)} ${st.gid}`);
      } catch {
        seen.add('absent');
      }
      await new Promise((r) => setImmediate(r));
    }
  })();
  const b = await berthd(['-H', `unix://${socket}`], { socket });
  watching = false;
  await watch;
  const expected = socketGroup(undefined).gid;
  const st = fs.statSync(socket);
  expect([st.mode & 0o777, st.gid]).toEqual([0o660, expected]);
  // Only the stale file and then the finished socket were ever at the path; no temporary directory left behind.
  for (const s of seen) if (!s.startsWith('file ')) expect(s).toBe(`socket 660 ${expected}`);
  expect(seen).toContain(`socket 660 ${expected}`);
  expect(fs.readdirSync(dir).filter((f) => f.startsWith('.berth-sock-'))).toEqual([]);
  await stop(b);
  expect(fs.existsSync(socket)).toBe(false);

  const b2 = await berthd(['-H', `unix://${socket}`, '--group', '0'], { socket });
  expect(fs.statSync(socket).gid).toBe(0);
  await stop(b2);

  const bad = await berthd(['-H', `unix://${socket}`, '-G', 'berth-no-such-group']);
  expect(await exited(bad.child)).toBe(1);
  expect(bad.log()).toContain('berthd: group berth-no-such-group not found');
});

test('fd:// serves the sockets systemd passes (systemd-socket-activate); without any, the start is refused', async () => {
  const socket = path.join(dir, 'activated.sock');
  const b = await berthd(['-H', 'fd://'], { socket, wrap: ['systemd-socket-activate', '-l', socket] });
  expect((await request(socket, 'GET', '/v1.24/version')).json().ApiVersion).toBe('1.24');
  await stop(b);

  const none = await berthd(['-H', 'fd://']);
  expect(await exited(none.child)).toBe(1);
  expect(none.log()).toContain('berthd: no sockets found via socket activation: make sure the service was started by systemd');
});
