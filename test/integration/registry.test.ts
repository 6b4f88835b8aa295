// Pull, push, login and import against real local registries (Debian's docker-registry: open, htpasswd basic
// auth, and token auth), with the docker CLI and the API's progress streams.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { startTestBerth, TestBerth } from '../helpers/berth';
import { freePort, startRegistry, TestRegistry } from '../helpers/registry';
import { berthWithBusybox } from '../helpers/suite';

const berth = berthWithBusybox();
let b: TestBerth;
let open: TestRegistry;
let basic: TestRegistry;
let token: TestRegistry;
beforeAll(async () => {
  b = berth();
  [open, basic, token] = await Promise.all([startRegistry(), startRegistry({ htpasswd: { user: 'alice', password: 's3cret' } }), startRegistry({ token: { user: 'bob', password: 'hunter2' } })]);
});
afterAll(async () => {
  await Promise.all([open?.close(), basic?.close(), token?.close()]);
});

const run = (args: string[], input?: string | Buffer) => b.docker(args, { apiVersion: '1.24', input });
const lines = (body: Buffer) =>
  body
    .toString()
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

describe('registries', () => {
  test('a committed image (a layer of a few bytes) and a built one push whole, and pull back', async () => {
    // The push counted progress with a 'data' listener that set the blob flowing before the upload read it: a small
    // layer's only chunk was lost and the upload failed ("Request body length does not match content-length header").
    const ref = `${open.host}/small/committed`;
    expect((await run(['run', '--name', 'small-commit', 'busybox', 'sh', '-c', 'echo x > /x'])).code).toBe(0);
    try {
      expect((await run(['commit', 'small-commit', `${ref}:v1`])).code).toBe(0);
      const push = await run(['push', `${ref}:v1`]);
      expect(push.stderr).toBe('');
      expect(push.code).toBe(0);
      expect((await run(['rmi', `${ref}:v1`])).code).toBe(0);
      expect((await run(['pull', `${ref}:v1`])).code).toBe(0);
      expect((await run(['run', '--rm', `${ref}:v1`, 'cat', '/x'])).stdout).toBe('x\n');
      const ctx = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-push-build-'));
      try {
        fs.writeFileSync(path.join(ctx, 'Dockerfile'), 'FROM busybox\nRUN echo hi > /hi\n');
        expect((await run(['build', '-q', '-t', `${open.host}/small/built:v1`, ctx])).code).toBe(0);
        const pushed = await run(['push', `${open.host}/small/built:v1`]);
        expect(pushed.stderr).toBe('');
        expect(pushed.code).toBe(0);
      } finally {
        fs.rmSync(ctx, { recursive: true, force: true });
        await run(['rmi', `${open.host}/small/built:v1`]);
      }
    } finally {
      await run(['rm', '-f', 'small-commit']);
      await run(['rmi', `${ref}:v1`]);
    }
  });

  test('push and pull with the CLI against an open registry; the progress streams are the engine’s', async () => {
    const ref = `${open.host}/team/bb`;
    expect((await run(['tag', 'busybox', `${ref}:v1`])).code).toBe(0);
    const push = await b.request('POST', `/v1.24/images/${ref}/push?tag=v1`, { headers: { 'X-Registry-Auth': 'e30=' } });
    const pushed = lines(push.body);
    expect(pushed[0]).toEqual({ status: `The push refers to repository [${ref}]` });
    expect(pushed.map((m) => m.status)).toEqual(expect.arrayContaining(['Preparing', 'Pushed']));
    const aux = pushed[pushed.length - 1];
    expect(aux.aux).toMatchObject({ Tag: 'v1', Size: expect.any(Number) });
    expect(pushed[pushed.length - 2].status).toBe(`v1: digest: ${aux.aux.Digest} size: ${aux.aux.Size}`);
    const again = lines((await b.request('POST', `/v1.24/images/${ref}/push?tag=v1`, { headers: { 'X-Registry-Auth': 'e30=' } })).body);
    expect(again.map((m) => m.status)).toContain('Layer already exists');
    // Another repository of the same registry: the blob is mounted from the first, not uploaded again.
    expect((await run(['tag', 'busybox', `${open.host}/other/bb:v1`])).code).toBe(0);
    const mounted = lines((await b.request('POST', `/v1.24/images/${open.host}/other/bb/push?tag=v1`, { headers: { 'X-Registry-Auth': 'e30=' } })).body);
    expect(mounted.map((m) => m.status)).toContain('Mounted from team/bb');
    expect(mounted.map((m) => m.status)).not.toContain('Pushed');
    expect((await run(['rmi', `${open.host}/other/bb:v1`])).code).toBe(0);

    // A second berth (its own namespace) pulls: every layer is really downloaded there.
    const before = (await b.request('GET', '/v1.24/images/busybox/json')).json();
    const b2 = await startTestBerth();
    try {
      const pull = await b2.request('POST', `/v1.24/images/create?fromImage=${encodeURIComponent(ref)}&tag=v1`);
      expect(pull.status).toBe(200);
      const pulled = lines(pull.body);
      expect(pulled[0]).toEqual({ status: 'Pulling from team/bb', id: 'v1' });
      const statuses = pulled.map((m) => m.status);
      for (const s of ['Pulling fs layer', 'Downloading', 'Verifying Checksum', 'Download complete', 'Extracting', 'Pull complete']) expect(statuses).toContain(s);
      expect(statuses.slice(-2)).toEqual([`Digest: ${aux.aux.Digest}`, `Status: Downloaded newer image for ${ref}:v1`]);
      const img = (await b2.request('GET', `/v1.24/images/${ref}:v1/json`)).json();
      expect(img.Id).toBe(before.Id);
      expect(img.RepoDigests).toEqual([`${ref}@${aux.aux.Digest}`]);
      // `docker images --digests` reads the list's RepoDigests (it never sends digests=1).
      const cli = await b2.docker(['images', '--digests', '--format', '{{.Repository}}:{{.Tag}} {{.Digest}}'], { apiVersion: '1.24' });
      expect(cli.stdout).toContain(`${ref}:v1 ${aux.aux.Digest}\n`);
      const up = lines((await b2.request('POST', `/v1.24/images/create?fromImage=${encodeURIComponent(ref)}&tag=v1`)).body);
      expect(up[up.length - 1]).toEqual({ status: `Status: Image is up to date for ${ref}:v1` });
    } finally {
      await b2.close();
    }
    expect((await run(['rmi', `${ref}:v1`])).code).toBe(0);
    const again2 = lines((await b.request('POST', `/v1.24/images/create?fromImage=${encodeURIComponent(ref)}&tag=v1`)).body);
    expect(again2[again2.length - 1]).toEqual({ status: `Status: Downloaded newer image for ${ref}:v1` });

    // the CLI: pull by digest, run the pulled image
    const byDigest = await run(['pull', `${ref}@${aux.aux.Digest}`]);
    expect(byDigest.code).toBe(0);
    const r = await run(['run', '--rm', `${ref}:v1`, 'echo', 'pulled-and-ran']);
    expect(r.stdout).toBe('pulled-and-ran\n');

    // all tags when the tag is empty
    expect((await run(['tag', 'busybox', `${ref}:v2`])).code).toBe(0);
    expect((await run(['push', `${ref}:v2`])).code).toBe(0);
    expect((await run(['rmi', `${ref}:v1`, `${ref}:v2`])).code).toBe(0);
    const all = await b.request('POST', `/v1.24/images/create?fromImage=${encodeURIComponent(ref)}`);
    expect(all.status).toBe(200);
    const tags = (await b.request('GET', '/v1.24/images/json')).json().flatMap((i: { RepoTags: string[] }) => i.RepoTags);
    expect(tags).toEqual(expect.arrayContaining([`${ref}:v1`, `${ref}:v2`]));
  });

  test('failures: unknown manifest 404, unreachable registry 500, a missing local tag inside the push stream', async () => {
    const missing = await b.request('POST', `/v1.24/images/create?fromImage=${open.host}/nope&tag=latest`);
    expect(missing.status).toBe(404);
    expect(missing.json().message).toBe(`manifest for ${open.host}/nope:latest not found: manifest unknown: manifest unknown`);
    const port = await freePort();
    const down = await b.request('POST', `/v1.24/images/create?fromImage=127.0.0.1:${port}/x&tag=y`);
    expect(down.status).toBe(500);
    expect(down.json().message).toBe(`Get "http://127.0.0.1:${port}/v2/x/manifests/y": dial tcp 127.0.0.1:${port}: connect: connection refused`);
    const bad = await b.request('POST', '/v1.24/images/create?fromImage=Bad_Name');
    expect(bad.status).toBe(400);
    const push = lines((await b.request('POST', `/v1.24/images/${open.host}/absent/push?tag=x`, { headers: { 'X-Registry-Auth': 'e30=' } })).body);
    expect(push[1]).toEqual({ errorDetail: { message: `An image does not exist locally with the tag: ${open.host}/absent` }, error: `An image does not exist locally with the tag: ${open.host}/absent` });
  });

  test('htpasswd (basic) registry: login answers like the reference; push and pull with credentials; none is refused', async () => {
    const bad = await b.request('POST', '/v1.24/auth', { body: { username: 'alice', password: 'wrong', serveraddress: basic.host } });
    expect([bad.status, bad.json().message]).toEqual([500, `login attempt to http://${basic.host}/v2/ failed with status: 401 Unauthorized`]);
    const ok = await b.request('POST', '/v1.24/auth', { body: { username: 'alice', password: 's3cret', serveraddress: basic.host } });
    expect([ok.status, ok.text]).toEqual([200, '{"IdentityToken":"","Status":"Login Succeeded"}\n']);
    expect((await b.request('POST', '/v1.22/auth', { body: { username: 'alice', password: 's3cret', serveraddress: basic.host } })).json()).toEqual({ Status: 'Login Succeeded' });

    const login = await run(['login', basic.host, '-u', 'alice', '--password-stdin'], 's3cret\n');
    expect(login.stdout).toContain('Login Succeeded');
    const ref = `${basic.host}/private/bb:1`;
    expect((await run(['tag', 'busybox', ref])).code).toBe(0);
    const push = await run(['push', ref]);
    expect([push.code, push.stderr]).toEqual([0, '']);
    expect((await run(['rmi', ref])).code).toBe(0);
    expect((await run(['pull', ref])).code).toBe(0);
    expect((await run(['logout', basic.host])).code).toBe(0);
    const anon = await b.request('POST', `/v1.24/images/create?fromImage=${basic.host}/private/bb&tag=1`);
    expect(anon.status).toBe(500);
    expect(anon.json().message).toContain('no basic auth credentials');
  });

  test('token-auth registry: the realm/service/scope flow for login, push and pull', async () => {
    const ok = await b.request('POST', '/v1.24/auth', { body: { username: 'bob', password: 'hunter2', serveraddress: token.host } });
    expect(ok.json().Status).toBe('Login Succeeded');
    const bad = await b.request('POST', '/v1.24/auth', { body: { username: 'bob', password: 'nope', serveraddress: token.host } });
    expect(bad.status).toBe(500);
    const auth = Buffer.from(JSON.stringify({ username: 'bob', password: 'hunter2' })).toString('base64url');
    const ref = `${token.host}/tok/bb`;
    expect((await run(['tag', 'busybox', `${ref}:t`])).code).toBe(0);
    const push = lines((await b.request('POST', `/v1.24/images/${ref}/push?tag=t`, { headers: { 'X-Registry-Auth': auth } })).body);
    expect(push[push.length - 1].aux?.Tag).toBe('t');
    expect((await run(['rmi', `${ref}:t`])).code).toBe(0);
    const pull = await b.request('POST', `/v1.24/images/create?fromImage=${ref}&tag=t`, { headers: { 'X-Registry-Auth': auth } });
    expect(lines(pull.body).pop()).toEqual({ status: `Status: Downloaded newer image for ${ref}:t` });
    const anon = await b.request('POST', `/v1.24/images/create?fromImage=${ref}&tag=t`);
    expect(anon.status).toBe(500);
    expect(anon.json().message).toContain('unauthorized');
  });

  test('import: a rootfs tarball from the body becomes a one-layer image with changes, message and history', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-import-'));
    fs.mkdirSync(path.join(dir, 'bin'));
    fs.copyFileSync('/bin/busybox', path.join(dir, 'bin', 'busybox'));
    fs.chmodSync(path.join(dir, 'bin', 'busybox'), 0o755);
    const tar = execFileSync('tar', ['-C', dir, '-c', '.'], { maxBuffer: 64 << 20 });
    fs.rmSync(dir, { recursive: true, force: true });
    const r = await run(['import', '-m', 'hello', '-c', 'CMD ["/bin/busybox", "echo", "imported"]', '-c', 'ENV A=1', '-', 'imp:v1'], tar);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toMatch(/^sha256:[0-9a-f]{64}$/);
    const img = (await b.request('GET', '/v1.24/images/imp:v1/json')).json();
    expect(img.Id).toBe(r.stdout.trim());
    expect(img.Comment).toBe('hello');
    expect(img.Config.Cmd).toEqual(['/bin/busybox', 'echo', 'imported']);
    expect(img.Config.Env).toEqual(['A=1']);
    const hist = (await b.request('GET', '/v1.24/images/imp:v1/history')).json();
    expect(hist).toHaveLength(1);
    expect(hist[0].Comment).toBe('hello');
    const out = await run(['run', '--rm', 'imp:v1']);
    expect(out.stdout).toBe('imported\n');
    const gz = await b.request('POST', '/v1.24/images/create?fromSrc=-&repo=imp&tag=gz', { body: require('node:zlib').gzipSync(tar), headers: { 'Content-Type': 'application/x-tar' } });
    expect(lines(gz.body)[0].status).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect((await b.request('GET', '/v1.24/images/imp:gz/json')).json().RootFS.Layers).toEqual(img.RootFS.Layers);
  });
});
