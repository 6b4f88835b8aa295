// Differences a differential sweep (the docker 20.10 CLI at API 1.24 against the reference engine and berth) found;
// each expectation is the reference's answer, asked with curl or the CLI (20.10.24).
import * as fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { startTestBerth, TestBerth } from '../helpers/berth';
import { loadBusybox } from '../helpers/busybox-image';
import { frames } from '../helpers/frames';

let b: TestBerth;
beforeAll(async () => {
  b = await startTestBerth();
  await loadBusybox(b);
  await loadBusybox(b, 'parity-user:latest', {
    extraFiles: { 'etc/passwd': 'root:x:0:0:root:/root:/bin/sh\nbob:x:1000:1000::/home/bob:/bin/sh\n', 'etc/group': 'root:x:0:\nbob:x:1000:\nstaff:x:50:bob\nwheel:x:10:root,bob\n' },
  });
});
afterAll(async () => {
  await b.close();
});

const json = (body: unknown) => ({ body });

/** create, start, wait; the output (stdout then stderr, as frames arrive) */
async function run(body: Record<string, unknown>, v = '1.24'): Promise<{ id: string; out: string }> {
  const c = await b.request('POST', `/v${v}/containers/create`, json({ Image: 'busybox', ...body }));
  expect([c.status, c.text]).toEqual([201, expect.any(String)]);
  const id = c.json().Id;
  expect((await b.request('POST', `/v${v}/containers/${id}/start`)).status).toBe(204);
  await b.request('POST', `/v${v}/containers/${id}/wait`);
  const logs = await b.request('GET', `/v${v}/containers/${id}/logs?stdout=1&stderr=1`);
  return { id, out: Buffer.concat(frames(logs.body).map((f) => f.data)).toString() };
}

describe('users: the primary group is a supplementary group too (20.10.18 on)', () => {
  test.each([
    [{ User: '1234:5678' }, 'uid=1234 gid=5678 groups=5678\n'],
    // the test image has a passwd with root (the reference's busybox had none: gid=0 groups=0)
    [{ User: '1234' }, 'uid=1234 gid=0(root) groups=0(root)\n'],
    [{ User: '1234:5678', HostConfig: { GroupAdd: ['99'] } }, 'uid=1234 gid=5678 groups=99,5678\n'],
    [{}, 'uid=0(root) gid=0(root) groups=0(root)\n'],
    [{ Image: 'parity-user', User: 'bob' }, 'uid=1000(bob) gid=1000(bob) groups=10(wheel),50(staff),1000(bob)\n'],
    [{ Image: 'parity-user', User: 'bob:staff' }, 'uid=1000(bob) gid=50(staff) groups=50(staff)\n'],
    [{ Image: 'parity-user', User: '1000:50' }, 'uid=1000(bob) gid=50(staff) groups=50(staff)\n'],
    [{ Image: 'parity-user' }, 'uid=0(root) gid=0(root) groups=0(root),10(wheel)\n'],
  ])('%j', async (body, want) => {
    const { id, out } = await run({ Cmd: ['id'], ...body });
    expect(out).toBe(want);
    await b.request('DELETE', `/v1.24/containers/${id}`);
  });

  test('exec -u uid:gid, and exec -u with the container’s GroupAdd', async () => {
    const c = (await b.request('POST', '/v1.24/containers/create', json({ Image: 'parity-user', Cmd: ['sleep', '100'], HostConfig: { GroupAdd: ['50'] } }))).json().Id;
    await b.request('POST', `/v1.24/containers/${c}/start`);
    const exec = async (User: string) => {
      const e = (await b.request('POST', `/v1.24/containers/${c}/exec`, json({ Cmd: ['id'], User, AttachStdout: true }))).json().Id;
      const s = await b.request('POST', `/v1.24/exec/${e}/start`, json({ Detach: false }));
      return Buffer.concat(frames(s.body).map((f) => f.data)).toString();
    };
    expect(await exec('1:1')).toBe('uid=1 gid=1 groups=1,50(staff)\n');
    expect(await exec('bob:wheel')).toBe('uid=1000(bob) gid=10(wheel) groups=10(wheel),50(staff)\n');
    await b.request('DELETE', `/v1.24/containers/${c}?force=1`);
  });
});

describe('environment', () => {
  test('a bare name (docker run -e B, B unset in the CLI) runs; it removes a default; Config.Env keeps it', async () => {
    const { id, out } = await run({ Cmd: ['env'], Env: ['A=1', 'B'] });
    expect(out.split('\n').filter((l) => !l.startsWith('HOSTNAME='))).toEqual(['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'A=1', 'HOME=/root', '']);
    expect((await b.request('GET', `/v1.24/containers/${id}/json`)).json().Config.Env).toEqual(['A=1', 'B', 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin']);
    const gone = await run({ Cmd: ['/bin/env'], Env: ['PATH', 'HOSTNAME', 'B=1', 'B'] });
    expect(gone.out).toBe('B=1\nHOME=/root\n');
    for (const c of [id, gone.id]) await b.request('DELETE', `/v1.24/containers/${c}`);
  });

  test('an empty variable or one without a name is refused at create', async () => {
    for (const [env, msg] of [[['=foo'], 'invalid environment variable: =foo'], [[''], 'invalid environment variable: ']] as const) {
      const r = await b.request('POST', '/v1.24/containers/create', json({ Image: 'busybox', Cmd: ['true'], Env: env }));
      expect([r.status, r.json().message]).toEqual([400, msg]);
    }
  });
});

test('a stop signal the engine does not know is a 400 at create; numbers but 0 pass', async () => {
  // (the reference checks it at 1.18 too; berth drops the field before 1.22, its since in the spec)
  for (const v of ['1.22', '1.24']) {
    const r = await b.request('POST', `/v${v}/containers/create`, json({ Image: 'busybox', StopSignal: 'FOO' }));
    expect([r.status, v === '1.24' ? r.json().message : r.text]).toEqual([400, v === '1.24' ? 'Invalid signal: FOO' : 'Invalid signal: FOO\n']);
  }
  const ok = await b.request('POST', '/v1.24/containers/create', json({ Image: 'busybox', Cmd: ['true'], StopSignal: '99' }));
  expect(ok.status).toBe(201);
  await b.request('DELETE', `/v1.24/containers/${ok.json().Id}`);
});

describe('exec errors name the container as the reference names it', () => {
  test('paused: as the client named it at create, the id at start; a start after unpause runs', async () => {
    const c = (await b.request('POST', '/v1.24/containers/create?name=pz', json({ Image: 'busybox', Cmd: ['sleep', '100'] }))).json().Id;
    await b.request('POST', '/v1.24/containers/pz/start');
    const e = (await b.request('POST', '/v1.24/containers/pz/exec', json({ Cmd: ['true'] }))).json().Id;
    await b.request('POST', '/v1.24/containers/pz/pause');
    for (const ref of ['pz', c.slice(0, 5)]) {
      const r = await b.request('POST', `/v1.24/containers/${ref}/exec`, json({ Cmd: ['true'] }));
      expect([r.status, r.json().message]).toEqual([409, `Container ${ref} is paused, unpause the container before exec`]);
    }
    const old = await b.request('POST', '/v1.18/containers/pz/exec', json({ Cmd: ['true'] }));
    expect([old.status, old.text]).toEqual([409, 'Container pz is paused, unpause the container before exec\n']);
    const s = await b.request('POST', `/v1.24/exec/${e}/start`, json({ Detach: true }));
    expect([s.status, s.json().message]).toEqual([409, `Container ${c} is paused, unpause the container before exec`]);
    await b.request('POST', '/v1.24/containers/pz/unpause');
    expect((await b.request('POST', `/v1.24/exec/${e}/start`, json({ Detach: true }))).status).toBe(200);
    await b.request('DELETE', '/v1.24/containers/pz?force=1');
  });

  test('not running: the id; an exec not started when its container stopped is gone (404)', async () => {
    const c = (await b.request('POST', '/v1.24/containers/create?name=nr', json({ Image: 'busybox', Cmd: ['sleep', '100'] }))).json().Id;
    await b.request('POST', '/v1.24/containers/nr/start');
    const e = (await b.request('POST', '/v1.24/containers/nr/exec', json({ Cmd: ['true'] }))).json().Id;
    const done = (await b.request('POST', '/v1.24/containers/nr/exec', json({ Cmd: ['true'] }))).json().Id;
    await b.request('POST', `/v1.24/exec/${done}/start`, json({ Detach: false }));
    await b.request('POST', '/v1.24/containers/nr/kill');
    await b.request('POST', '/v1.24/containers/nr/wait');
    const r = await b.request('POST', '/v1.24/containers/nr/exec', json({ Cmd: ['true'] }));
    expect([r.status, r.json().message]).toEqual([409, `Container ${c} is not running`]);
    for (const [m, p] of [['GET', `/v1.24/exec/${e}/json`], ['POST', `/v1.24/exec/${e}/start`]]) {
      const g = await b.request(m, p, m === 'POST' ? json({ Detach: true }) : {});
      expect([g.status, g.json().message]).toEqual([404, `No such exec instance: ${e}`]);
    }
    // a finished one stays inspectable
    expect((await b.request('GET', `/v1.24/exec/${done}/json`)).status).toBe(200);
    const nf = await b.request('POST', '/v1.24/containers/nope/exec', json({ Cmd: ['true'] }));
    expect([nf.status, nf.json().message]).toEqual([404, 'No such container: nope']);
    await b.request('DELETE', '/v1.24/containers/nr');
  });
});

describe('create warnings (the reference on this host)', () => {
  const OOM = 'OOM killer is disabled for the container, but no memory limit is set, this can result in the system running out of resources.';
  test('OomKillDisable without a memory limit, at every version', async () => {
    for (const v of ['1.18', '1.24']) {
      const r = await b.request('POST', `/v${v}/containers/create`, json({ Image: 'busybox', Cmd: ['true'], HostConfig: { OomKillDisable: true } }));
      expect([r.status, r.json().Warnings]).toEqual([201, [OOM]]);
      await b.request('DELETE', `/v1.24/containers/${r.json().Id}`);
    }
    const m = await b.request('POST', '/v1.24/containers/create', json({ Image: 'busybox', Cmd: ['true'], HostConfig: { OomKillDisable: true, Memory: 10_000_000 } }));
    expect(m.json().Warnings).toEqual([]);
    await b.request('DELETE', `/v1.24/containers/${m.json().Id}`);
  });

  test('a blkio weight the kernel cannot take is discarded with a warning (as the reference decides, by the cgroup files)', async () => {
    const supported = ['/sys/fs/cgroup/blkio/blkio.weight', '/sys/fs/cgroup/io.weight', '/sys/fs/cgroup/io.bfq.weight'].some((f) => fs.existsSync(f));
    const r = await b.request('POST', '/v1.24/containers/create', json({ Image: 'busybox', Cmd: ['true'], HostConfig: { BlkioWeight: 300 } }));
    expect(r.status).toBe(201);
    expect(r.json().Warnings).toEqual(supported ? [] : ['Your kernel does not support Block I/O weight or the cgroup is not mounted. Weight discarded.']);
    expect((await b.request('GET', `/v1.24/containers/${r.json().Id}/json`)).json().HostConfig.BlkioWeight).toBe(supported ? 300 : 0);
    await b.request('DELETE', `/v1.24/containers/${r.json().Id}`);
    if (fs.existsSync('/sys/fs/cgroup/memory/memory.kmem.limit_in_bytes')) {
      const k = await b.request('POST', '/v1.24/containers/create', json({ Image: 'busybox', Cmd: ['true'], HostConfig: { KernelMemory: 1000 } }));
      expect([k.status, k.json().message]).toEqual([400, 'Minimum kernel memory limit allowed is 6MB']);
    }
  });
});

describe('HostConfig.Mounts (the CLI’s --mount, sent at every version; the reference honours it)', () => {
  test.each([
    [[{ Type: 'bind', Source: '/nonexistent-y', Target: '/y' }], 'invalid mount config for type "bind": bind source path does not exist: /nonexistent-y'],
    [[{ Type: 'bind', Source: '/tmp' }], 'invalid mount config for type "bind": field Target must not be empty'],
    [[{ Type: 'bind', Source: 'rel', Target: '/y' }], "invalid mount config for type \"bind\": invalid mount path: 'rel' mount path must be absolute"],
    [[{ Type: 'bind', Source: '/tmp', Target: 'y' }], "invalid mount config for type \"bind\": invalid mount path: 'y' mount path must be absolute"],
    [[{ Type: 'volume', Source: '/abs', Target: '/v' }], 'create /abs: "/abs" includes invalid characters for a local volume name, only "[a-zA-Z0-9][a-zA-Z0-9_.-]" are allowed. If you intended to pass a host directory, use absolute path'],
    [[{ Type: 'volume', Source: 'pv', Target: '/v', BindOptions: { Propagation: 'shared' } }], 'invalid mount config for type "volume": field BindOptions must not be specified'],
    [[{ Type: 'tmpfs', Source: 'x', Target: '/t' }], 'invalid mount config for type "tmpfs": field Source must not be specified'],
    [[{ Type: 'bind', Source: '/tmp', Target: '/y', VolumeOptions: {} }], 'invalid mount config for type "bind": field VolumeOptions must not be specified'],
    [[{ Type: 'foo', Target: '/y' }], 'invalid mount config for type "foo": mount type unknown'],
    [[{ Target: '/y' }], 'invalid mount config for type "": mount type unknown'],
    [[{ Type: 'bind', Source: '/tmp', Target: '/y' }, { Type: 'volume', Target: '/y' }], 'Duplicate mount point: /y'],
    [[{ Type: 'bind', Source: '/tmp', Target: '/y', BindOptions: { Propagation: 'bogus' } }], 'invalid mount config for type "bind": invalid propagation mode: bogus'],
  ])('%j', async (mounts, msg) => {
    for (const v of ['1.18', '1.24']) {
      const r = await b.request('POST', `/v${v}/containers/create`, json({ Image: 'busybox', Cmd: ['true'], HostConfig: { Mounts: mounts } }));
      expect([r.status, v === '1.24' ? r.json().message : r.text]).toEqual([400, v === '1.24' ? msg : `${msg}\n`]);
    }
  });

  test('bind (read-only), tmpfs with a size, a named volume with labels and an anonymous one: mounted, inspected as the reference', async () => {
    const dir = fs.mkdtempSync('/tmp/berth-parity-mnt-');
    fs.writeFileSync(`${dir}/f`, 'hi\n');
    const Mounts = [
      { Type: 'bind', Source: dir, Target: '/y', ReadOnly: true },
      { Type: 'tmpfs', Target: '/t', TmpfsOptions: { SizeBytes: 1048576 } },
      { Type: 'volume', Source: 'parity-mv', Target: '/v', VolumeOptions: { Labels: { a: 'b' } } },
      { Type: 'volume', Target: '/w' },
    ];
    const script = 'cat /y/f; mount | grep -E " /(y|v|w) " | sed -E "s/.* on ([^ ]+) type [^ ]+ [(](r[ow]).*/\\1 \\2/"; mount | grep " /t " | cut -d" " -f3-';
    const { id, out } = await run({ Cmd: ['sh', '-c', script], HostConfig: { Mounts } });
    expect(out).toBe('hi\n/y ro\n/v rw\n/w rw\n/t type tmpfs (rw,nosuid,nodev,noexec,relatime,size=1024k)\n');
    const c = (await b.request('GET', `/v1.24/containers/${id}/json`)).json();
    expect(c.HostConfig.Mounts).toEqual(Mounts);
    const anon = c.Mounts.find((m: { Destination: string }) => m.Destination === '/w');
    const vol = (await b.request('GET', '/v1.24/volumes/parity-mv')).json();
    expect(c.Mounts).toEqual([
      { Type: 'bind', Source: dir, Destination: '/y', Mode: '', RW: false, Propagation: 'rprivate' },
      { Type: 'tmpfs', Source: '', Destination: '/t', Mode: '', RW: true, Propagation: '' },
      { Type: 'volume', Name: 'parity-mv', Source: vol.Mountpoint, Destination: '/v', Driver: 'local', Mode: 'z', RW: true, Propagation: '' },
      { Type: 'volume', Name: anon.Name, Source: anon.Source, Destination: '/w', Driver: 'local', Mode: 'z', RW: true, Propagation: '' },
    ]);
    expect(vol.Labels).toEqual({ a: 'b' });
    // without Mounts the key is left out, as the reference's omitempty
    const plain = (await b.request('POST', '/v1.24/containers/create', json({ Image: 'busybox', Cmd: ['true'] }))).json().Id;
    expect('Mounts' in (await b.request('GET', `/v1.24/containers/${plain}/json`)).json().HostConfig).toBe(false);
    for (const x of [id, plain]) await b.request('DELETE', `/v1.24/containers/${x}?v=1`);
    expect((await b.request('GET', `/v1.24/volumes/${anon.Name}`)).status).toBe(404);
    await b.request('DELETE', '/v1.24/volumes/parity-mv');
    fs.rmSync(dir, { recursive: true });
  });
});

test('bind propagation the source’s mount cannot give: the start is a 500 in the engine’s words, the container stays created; a shared source’s bind stays in its peer group', async () => {
  // (a private and a shared mount of their own: the host's / may be either)
  const priv = fs.mkdtempSync('/tmp/berth-parity-priv-');
  const shared = fs.mkdtempSync('/tmp/berth-parity-shared-');
  for (const [d, p] of [[priv, '--make-private'], [shared, '--make-shared']]) {
    execFileSync('mount', ['--bind', d, d]);
    execFileSync('mount', [p, d]);
  }
  fs.mkdirSync(`${priv}/src`);
  try {
    const cases: [Record<string, unknown>, string][] = [
      [{ Binds: [`${priv}/src:/y:rslave`] }, 'shared or slave'],
      [{ Binds: [`${priv}/src:/y:shared`] }, 'shared'],
      [{ Mounts: [{ Type: 'bind', Source: `${priv}/src`, Target: '/y', BindOptions: { Propagation: 'slave' } }] }, 'shared or slave'],
    ];
    for (const [hc, what] of cases) {
      for (const v of ['1.18', '1.24']) {
        const id = (await b.request('POST', `/v${v}/containers/create`, json({ Image: 'busybox', Cmd: ['true'], HostConfig: hc }))).json().Id;
        const msg = `path ${priv}/src is mounted on ${priv} but it is not a ${what} mount`;
        const r = await b.request('POST', `/v${v}/containers/${id}/start`);
        expect([r.status, v === '1.24' ? r.json().message : r.text]).toEqual([500, v === '1.24' ? msg : `${msg}\n`]);
        const st = (await b.request('GET', `/v1.24/containers/${id}/json`)).json().State;
        expect([st.Status, st.ExitCode, st.Error]).toEqual(['created', 128, msg]);
        await b.request('DELETE', `/v1.24/containers/${id}`);
      }
    }
    const { id, out } = await run({ Cmd: ['sh', '-c', 'grep " /y " /proc/self/mountinfo | cut -d" " -f7'], HostConfig: { Binds: [`${shared}:/y:rshared`] } });
    const group = fs.readFileSync('/proc/self/mountinfo', 'utf8').split('\n').find((l) => l.split(' ')[4] === shared)!.split(' ')[6];
    expect([out.trim(), group]).toEqual([group, expect.stringMatching(/^shared:\d+$/)]);
    await b.request('DELETE', `/v1.24/containers/${id}`);
  } finally {
    for (const d of [priv, shared]) {
      execFileSync('umount', [d]);
      fs.rmSync(d, { recursive: true });
    }
  }
});

test('a Blkio*Device path is looked up at start: a missing one or one that is no block device refuses it in the reference’s words (400 where it answers 500), the container stays created', async () => {
  const entry = fs.readdirSync('/sys/dev/block')[0];
  const devname = /DEVNAME=(\S+)/.exec(fs.readFileSync(`/sys/dev/block/${entry}/uevent`, 'utf8'))![1];
  const later = `/tmp/berth-parity-blkio-${process.pid}`;
  const cases: [Record<string, unknown>, string | RegExp][] = [
    [{ BlkioDeviceReadBps: [{ Path: '/dev/nonexistent', Rate: 1048576 }] }, 'stat /dev/nonexistent: no such file or directory'],
    [{ BlkioDeviceWriteIOps: [{ Path: `/dev/${devname}`, Rate: 10 }, { Path: '/dev/nonexistent', Rate: 10 }] }, 'stat /dev/nonexistent: no such file or directory'],
    [{ BlkioDeviceReadBps: [{ Path: '/dev/null', Rate: 1048576 }] }, /^failed to create shim task: OCI runtime create failed: .*failed to write "1:3 1048576": write \/sys\/fs\/cgroup\/blkio\/.*\/blkio\.throttle\.read_bps_device: no such device: unknown$/],
  ];
  for (const [hc, msg] of cases) {
    for (const v of ['1.18', '1.24']) {
      const c = await b.request('POST', `/v${v}/containers/create`, json({ Image: 'busybox', Cmd: ['true'], HostConfig: hc }));
      expect(c.status).toBe(201);
      const id = c.json().Id;
      const r = await b.request('POST', `/v${v}/containers/${id}/start`);
      expect(r.status).toBe(400);
      expect(v === '1.24' ? r.json().message : r.text.replace(/\n$/, '')).toMatch(msg);
      const st = (await b.request('GET', `/v1.24/containers/${id}/json`)).json().State;
      expect([st.Status, st.ExitCode, st.Error]).toEqual(['created', 128, expect.stringMatching(msg)]);
      await b.request('DELETE', `/v1.24/containers/${id}`);
    }
  }
  // a device that appears between create and start is the one started with (the character device 1:3, refused by
  // the kernel, shows that its numbers reached the runtime)
  const c = (await b.request('POST', '/v1.24/containers/create', json({ Image: 'busybox', Cmd: ['true'], HostConfig: { BlkioDeviceReadBps: [{ Path: later, Rate: 1 }] } }))).json().Id;
  fs.symlinkSync('/dev/null', later);
  try {
    const r = await b.request('POST', `/v1.24/containers/${c}/start`);
    expect([r.status, r.json().message]).toEqual([400, expect.stringContaining('failed to write "1:3 1"')]);
  } finally {
    fs.rmSync(later);
    await b.request('DELETE', `/v1.24/containers/${c}`);
  }
});

test('load and import of what is no image archive: the reference’s words (its untar’s, or its pre-1.10 loader’s missing `repositories`); a compressed save loads', async () => {
  const zlib = await import('node:zlib');
  const tarOf = (name: string, data: string) => {
    const h = Buffer.alloc(512);
    h.write(name);
    h.write('0000644\0', 100);
    h.write('0000000\0', 108);
    h.write('0000000\0', 116);
    h.write(`${data.length.toString(8).padStart(11, '0')}\0`, 124);
    h.write('00000000000\0', 136);
    h.write('        ', 148);
    h.write('0', 156);
    h.write('ustar\x0000', 257);
    let sum = 0;
    for (const x of h) sum += x;
    h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
    const body = Buffer.alloc(Math.ceil(data.length / 512) * 512);
    body.write(data);
    return Buffer.concat([h, body, Buffer.alloc(1024)]);
  };
  const missing = /^open \/.+\/tmp\/docker-import-\d+\/repositories: no such file or directory$/;
  const cases: [Buffer, string | RegExp][] = [
    [Buffer.alloc(0), missing],
    [Buffer.alloc(1024), missing],
    [tarOf('a', 'x\n'), missing],
    [zlib.gzipSync(tarOf('a', 'x\n')), missing],
    [Buffer.from('hello not a tar\n'), 'Error processing tar file(exit status 1): unexpected EOF'],
    [zlib.gzipSync(Buffer.from('hello not a tar\n')), 'Error processing tar file(exit status 1): unexpected EOF'],
    [Buffer.from('x'.repeat(2000)), 'Error processing tar file(exit status 1): archive/tar: invalid tar header'],
  ];
  for (const [body, msg] of cases) {
    for (const q of ['', '?quiet=1']) {
      const r = await b.request('POST', `/v1.24/images/load${q}`, { body, headers: { 'Content-Type': 'application/x-tar' } });
      expect(r.status).toBe(200);
      const line = JSON.parse(r.text.trim());
      expect(line.errorDetail.message).toMatch(msg);
      expect(line.error).toBe(line.errorDetail.message);
    }
  }
  // import: the untar's words, 400 where the reference answers 500 (the client's body)
  for (const [body, msg] of cases.slice(4)) {
    const r = await b.request('POST', '/v1.24/images/create?fromSrc=-&repo=parity-imp', { body, headers: { 'Content-Type': 'application/x-tar' } });
    expect([r.status, r.json().message]).toEqual([400, msg]);
  }
  const saved = (await b.request('GET', '/v1.24/images/busybox/get')).body;
  const gz = await b.request('POST', '/v1.24/images/load?quiet=1', { body: zlib.gzipSync(saved), headers: { 'Content-Type': 'application/x-tar' } });
  expect([gz.status, gz.text]).toEqual([200, '{"stream":"Loaded image: busybox:latest\\n"}\n']);
});

test('list filters: the reference’s words for bad values; dangling as the engine reads it; image before/since', async () => {
  const q = (p: string, f: unknown) => b.request('GET', `/v1.24/${p}filters=${encodeURIComponent(JSON.stringify(f))}`);
  const bad = async (p: string, f: unknown, status: number, message: string) => {
    const r = await q(p, f);
    expect([p, r.status, r.json().message]).toEqual([p, status, message]);
  };
  await bad('containers/json?all=1&', { status: ['running', 'bogus'] }, 400, "Invalid filter 'status=bogus'");
  // (the reference answers these two 500)
  await bad('containers/json?all=1&', { since: ['nope'] }, 404, 'no such container nope');
  await bad('networks?', { type: ['custom', 'odd'] }, 400, "invalid filter: 'type'='odd'");
  await bad('images/json?', { dangling: ['x', 'y'] }, 400, "Invalid filter 'dangling=[x y]'");
  await bad('images/json?', { dangling: ['1'] }, 400, "Invalid filter 'dangling=[1]'");
  await bad('volumes?', { dangling: ['TRUE'] }, 400, "Invalid filter 'dangling=[TRUE]'");
  for (const [p, d] of [['images/json?', ['x', 'true']], ['images/json?', ['false', 'x']], ['volumes?', ['1']], ['volumes?', ['x', '0']]] as const) expect([p, d, (await q(p, { dangling: d })).status]).toEqual([p, d, 200]);
  await bad('images/json?', { before: ['nope'] }, 404, 'No such image: nope:latest');
  await bad('images/json?', { dangling: ['x'], since: ['nope'] }, 400, "Invalid filter 'dangling=[x]'");
  const c = (await b.request('POST', '/v1.24/containers/create', json({ Image: 'busybox', Cmd: ['true'] }))).json().Id;
  await new Promise((r) => setTimeout(r, 1100)); // (image times are to the second in some configs)
  const img = (await b.request('POST', `/v1.24/commit?container=${c}&repo=parity-later&tag=1`)).json().Id;
  const ids = async (f: unknown) => (await q('images/json?', f)).json().map((i: { Id: string }) => i.Id);
  const bb = (await b.request('GET', '/v1.24/images/busybox/json')).json().Id;
  expect(await ids({ before: ['parity-later:1'] })).toContain(bb);
  expect(await ids({ before: ['parity-later:1'] })).not.toContain(img);
  expect(await ids({ since: ['busybox'] })).toContain(img);
  expect(await ids({ since: ['busybox'] })).not.toContain(bb);
  await b.request('DELETE', `/v1.24/containers/${c}`);
  await b.request('DELETE', '/v1.24/images/parity-later:1');
});

describe('what the reference looks up at start, not at create: joined namespaces, devices, GroupAdd', () => {
  const create = async (hc: Record<string, unknown>) => {
    const r = await b.request('POST', '/v1.24/containers/create', json({ Image: 'busybox', Cmd: ['sleep', '100'], HostConfig: hc }));
    return { status: r.status, id: r.json().Id as string, message: r.json().message as string };
  };
  const refused = async (hc: Record<string, unknown>, status: number, message: string) => {
    const c = await create(hc);
    expect(c.status).toBe(201);
    const r = await b.request('POST', `/v1.24/containers/${c.id}/start`);
    expect([r.status, r.json().message]).toEqual([status, message.replace('ID', c.id)]);
    const st = (await b.request('GET', `/v1.24/containers/${c.id}/json`)).json().State;
    expect([st.Status, st.ExitCode, st.Error]).toEqual(['created', 128, r.json().message]);
    await b.request('DELETE', `/v1.24/containers/${c.id}`);
  };

  test('a pid or ipc namespace’s or volumes’ container must exist at create (400); a network one is looked up at start (404)', async () => {
    for (const hc of [{ PidMode: 'container:nonexist' }, { IpcMode: 'container:nonexist' }, { VolumesFrom: ['nonexist'] }]) expect(await create(hc)).toEqual({ status: 400, id: undefined, message: 'No such container: nonexist' });
    await refused({ NetworkMode: 'container:nonexist' }, 404, 'No such container: nonexist');
  });

  test('a stopped container to join refuses the start in the reference’s words (409; it answers 500 for pid and ipc)', async () => {
    const other = (await create({})).id;
    await refused({ NetworkMode: `container:${other}` }, 409, `cannot join network of a non running container: ${other}`);
    await refused({ PidMode: `container:${other}` }, 409, `container ${other} is not running`);
    await refused({ IpcMode: `container:${other}` }, 409, `can't join IPC of container ${other}: container ${other} is not running`);
    await b.request('DELETE', `/v1.24/containers/${other}`);
  });

  test('the namespaces joined are those of the container’s run at the start (it restarted since create)', async () => {
    const other = (await create({})).id;
    await b.request('POST', `/v1.24/containers/${other}/start`);
    const c = (await create({ NetworkMode: `container:${other}`, PidMode: `container:${other}` })).id;
    await b.request('POST', `/v1.24/containers/${other}/restart?t=0`);
    expect((await b.request('POST', `/v1.24/containers/${c}/start`)).status).toBe(204);
    const e = (await b.request('POST', `/v1.24/containers/${c}/exec`, json({ Cmd: ['ps', '-o', 'comm'], AttachStdout: true }))).json().Id;
    const out = Buffer.concat(frames((await b.request('POST', `/v1.24/exec/${e}/start`, json({ Detach: false }))).body).map((f) => f.data)).toString();
    expect(out.split('\n').filter((l) => l === 'sleep')).toHaveLength(2);
    await b.request('DELETE', `/v1.24/containers/${c}?force=1`);
    await b.request('DELETE', `/v1.24/containers/${other}?force=1`);
  });

  test('a device missing at start (400 where the reference answers 500); an unknown GroupAdd group (500, as the reference)', async () => {
    await refused({ Devices: [{ PathOnHost: '/dev/nonexist', PathInContainer: '/dev/x', CgroupPermissions: 'rwm' }] }, 400, 'error gathering device information while adding custom device "/dev/nonexist": no such file or directory');
    await refused({ GroupAdd: ['nogroup'] }, 500, 'Unable to find group nogroup: no matching entries in group file');
  });
});

test('a fixed address is checked when the endpoint is made, in the reference’s words; anywhere in the subnet; a failed start leaves the network usable', async () => {
  const net = (await b.request('POST', '/v1.24/networks/create', json({ Name: 'parity-ipr', IPAM: { Config: [{ Subnet: '10.123.0.0/24', IPRange: '10.123.0.128/25' }] } }))).json().Id;
  await b.request('POST', '/v1.24/networks/create', json({ Name: 'parity-nosub' }));
  const create = (netName: string, ip: string) => b.request('POST', '/v1.24/containers/create', json({ Image: 'busybox', Cmd: ['sleep', '100'], HostConfig: { NetworkMode: netName }, NetworkingConfig: { EndpointsConfig: { [netName]: { IPAMConfig: { IPv4Address: ip } } } } }));
  const bad = await create('parity-ipr', 'bogus');
  expect([bad.status, bad.json().message]).toEqual([400, 'invalid IPv4 address: bogus']);
  const refused = async (netName: string, ip: string, status: number, message: string) => {
    const c = await create(netName, ip);
    expect(c.status).toBe(201);
    const r = await b.request('POST', `/v1.24/containers/${c.json().Id}/start`);
    expect([ip, r.status, r.json().message]).toEqual([ip, status, message]);
    const st = (await b.request('GET', `/v1.24/containers/${c.json().Id}/json`)).json().State;
    expect([st.Status, st.ExitCode, st.Error]).toEqual(['created', 128, message]);
    await b.request('DELETE', `/v1.24/containers/${c.json().Id}`);
  };
  // (the first start on the new network fails: its bridge keeps a MAC of its own, and the next starts run)
  await refused('parity-ipr', '10.123.1.1', 400, "Invalid address 10.123.1.1: It does not belong to any of this network's subnets");
  await refused('bridge', '172.31.0.99', 400, 'user specified IP address is supported on user defined networks only');
  await refused('parity-nosub', '10.1.1.1', 400, 'user specified IP address is supported only when connecting to networks with user configured subnets');
  // outside the IP range, inside the subnet: the reference takes it
  const held = (await create('parity-ipr', '10.123.0.9')).json().Id;
  expect((await b.request('POST', `/v1.24/containers/${held}/start`)).status).toBe(204);
  expect((await b.request('GET', `/v1.24/containers/${held}/json`)).json().NetworkSettings.Networks['parity-ipr'].IPAddress).toBe('10.123.0.9');
  // the bridge's MAC is set by hand (kept when its last port leaves: a zero MAC failed every start after a failed one)
  expect(fs.readFileSync(`/sys/class/net/br-${net.slice(0, 12)}/addr_assign_type`, 'utf8').trim()).toBe('3');
  for (const ip of ['10.123.0.9', '10.123.0.0', '10.123.0.255']) await refused('parity-ipr', ip, 403, 'Address already in use');
  // the addresses handed out still come from the IP range, whose first address is the gateway when none is given
  // (the reference, asked: inet 10.123.0.129, default via 10.123.0.128)
  const { id, out } = await run({ Cmd: ['sh', '-c', 'ip -4 addr show eth0 | grep -o "inet [0-9.]*"; ip route | grep -o "default via [0-9.]*"'], HostConfig: { NetworkMode: 'parity-ipr' } });
  expect(out).toBe('inet 10.123.0.129\ndefault via 10.123.0.128\n');
  for (const c of [id, held]) await b.request('DELETE', `/v1.24/containers/${c}?force=1`);
  for (const n of [net, 'parity-nosub']) await b.request('DELETE', `/v1.24/networks/${n}`);
});

test('the root filesystem as the reference’s: init layer dev/console and etc/mtab; a volume at /etc under the etc binds, filled from the root filesystem', async () => {
  const { id, out } = await run({ Cmd: ['sh', '-c', 'readlink /etc/mtab; cat /etc/hostname'], Hostname: 'h1' });
  expect(out).toBe('/proc/mounts\nh1\n');
  // (dev/console is under /dev's tmpfs in the container: export shows it)
  const tar = (await b.request('GET', `/v1.24/containers/${id}/export`)).body;
  const names: string[] = [];
  for (let o = 0; o + 512 <= tar.length && tar[o] !== 0; ) {
    const name = tar.subarray(o, o + 100).toString().replace(/\0.*$/s, '');
    const size = parseInt(tar.subarray(o + 124, o + 136).toString().replace(/\0.*$/s, '').trim() || '0', 8);
    names.push(name);
    o += 512 + Math.ceil(size / 512) * 512;
  }
  expect(names).toEqual(expect.arrayContaining(['dev/console', 'etc/mtab']));
  await b.request('DELETE', `/v1.24/containers/${id}`);
  const anon = (await b.request('POST', '/v1.24/containers/create', json({ Image: 'busybox', Cmd: ['true'], Volumes: { '/etc': {} } }))).json().Id;
  const ro = await run({ Cmd: ['sh', '-c', 'ls /etc; cat /etc/hostname'], Hostname: 'h2', HostConfig: { VolumesFrom: [`${anon}:ro`] } });
  expect(ro.out).toBe('group\nhostname\nhosts\nmtab\npasswd\nresolv.conf\nh2\n');
  for (const c of [ro.id, anon]) await b.request('DELETE', `/v1.24/containers/${c}?v=1`);
});

test('exec: TERM=xterm is the exec’s own TTY’s; logs: a tail that is no integer is all; a paused container’s removal advice', async () => {
  const c = (await b.request('POST', '/v1.24/containers/create?name=pt', json({ Image: 'busybox', Tty: true, Cmd: ['sh', '-c', 'echo 1; echo 2; sleep 100'] }))).json().Id;
  await b.request('POST', `/v1.24/containers/${c}/start`);
  const env = async (Tty: boolean) => {
    const e = (await b.request('POST', `/v1.24/containers/${c}/exec`, json({ Cmd: ['env'], AttachStdout: true, Tty }))).json().Id;
    const r = await b.request('POST', `/v1.24/exec/${e}/start`, json({ Detach: false, Tty }));
    return (Tty ? r.text : Buffer.concat(frames(r.body).map((f) => f.data)).toString()).includes('TERM=xterm');
  };
  expect([await env(false), await env(true)]).toEqual([false, true]);
  await new Promise((r) => setTimeout(r, 300));
  for (const t of ['bogus', '2x', ' 1', '-1']) expect([t, (await b.request('GET', `/v1.24/containers/${c}/logs?stdout=1&tail=${encodeURIComponent(t)}`)).text]).toEqual([t, '1\r\n2\r\n']);
  expect((await b.request('GET', `/v1.24/containers/${c}/logs?stdout=1&tail=1`)).text).toBe('2\r\n');
  await b.request('POST', `/v1.24/containers/${c}/pause`);
  const rm = await b.request('DELETE', `/v1.24/containers/${c}`);
  expect([rm.status, rm.json().message]).toEqual([409, `You cannot remove a paused container ${c}. Unpause and then stop the container before attempting removal or force remove`]);
  await b.request('DELETE', `/v1.24/containers/${c}?force=1`);
});

test('stats of a container that is not running: the reference’s zero sample, once or each second in a stream', async () => {
  const id = (await b.request('POST', '/v1.24/containers/create?name=pzs', json({ Image: 'busybox', Cmd: ['true'] }))).json().Id;
  const cpu = '{"cpu_usage":{"total_usage":0,"usage_in_kernelmode":0,"usage_in_usermode":0},"throttling_data":{"periods":0,"throttled_periods":0,"throttled_time":0}}';
  const lists = ['io_service_bytes_recursive', 'io_serviced_recursive', 'io_queue_recursive', 'io_service_time_recursive', 'io_wait_time_recursive', 'io_merged_recursive', 'io_time_recursive', 'sectors_recursive'].map((k) => `"${k}":null`).join(',');
  const head = `{"read":"0001-01-01T00:00:00Z","preread":"0001-01-01T00:00:00Z","pids_stats":{},"blkio_stats":{${lists}},"num_procs":0,"storage_stats":{},"cpu_stats":${cpu},"precpu_stats":${cpu},"memory_stats":{}`;
  const named = `${head},"name":"/pzs","id":"${id}"}`;
  for (const v of ['1.20', '1.24']) expect((await b.request('GET', `/v${v}/containers/${id}/stats?stream=0`)).text).toBe(`${named}\n`);
  const lines = await new Promise<string[]>((resolve) => {
    const http = require('node:http') as typeof import('node:http');
    const req = http.get({ socketPath: b.socket, path: `/v1.20/containers/${id}/stats` }, (res) => {
      let buf = '';
      res.on('data', (c: Buffer) => {
        buf += c.toString();
        const got = buf.split('\n').filter(Boolean);
        if (got.length >= 2) {
          req.destroy();
          resolve(got.slice(0, 2));
        }
      });
    });
  });
  const zeroNet = '{"rx_bytes":0,"rx_packets":0,"rx_errors":0,"rx_dropped":0,"tx_bytes":0,"tx_packets":0,"tx_errors":0,"tx_dropped":0}';
  expect(lines).toEqual([`${head},"network":${zeroNet}}`, `${head},"network":${zeroNet}}`]);
  await b.request('DELETE', `/v1.24/containers/${id}`);
});

test('a network missing at create: created (kept by name, no id), the start is the 404; made meanwhile, the start runs', async () => {
  const c = await b.request('POST', '/v1.24/containers/create?name=nonet', json({ Image: 'busybox', Cmd: ['true'], HostConfig: { NetworkMode: 'parity-later' } }));
  expect(c.status).toBe(201);
  const n = (await b.request('GET', '/v1.24/containers/nonet/json')).json().NetworkSettings.Networks;
  expect(Object.keys(n)).toEqual(['parity-later']);
  expect(n['parity-later']).toEqual(expect.objectContaining({ NetworkID: '', EndpointID: '', IPAddress: '', Aliases: null }));
  const s = await b.request('POST', '/v1.24/containers/nonet/start');
  expect([s.status, s.json().message]).toEqual([404, 'network parity-later not found']);
  await b.request('POST', '/v1.24/networks/create', json({ Name: 'parity-later' }));
  expect((await b.request('POST', '/v1.24/containers/nonet/start')).status).toBe(204);
  await b.request('POST', '/v1.24/containers/nonet/wait');
  await b.request('DELETE', '/v1.24/containers/nonet');
  await b.request('DELETE', '/v1.24/networks/parity-later');
});

test('rename: the reservation’s errors headed as the reference’s', async () => {
  const one = (await b.request('POST', '/v1.24/containers/create?name=rn1', json({ Image: 'busybox', Cmd: ['true'] }))).json().Id;
  const two = (await b.request('POST', '/v1.24/containers/create?name=rn2', json({ Image: 'busybox', Cmd: ['true'] }))).json().Id;
  const taken = `Error when allocating new name: Conflict. The container name "/rn2" is already in use by container "${two}". You have to remove (or rename) that container to be able to reuse that name.`;
  for (const name of ['rn2', '/rn2']) {
    const r = await b.request('POST', `/v1.24/containers/rn1/rename?name=${encodeURIComponent(name)}`);
    expect([r.status, r.json().message]).toEqual([409, taken]);
  }
  const bad = await b.request('POST', '/v1.24/containers/rn1/rename?name=bad%20name');
  expect([bad.status, bad.json().message]).toEqual([400, 'Error when allocating new name: Invalid container name (/bad name), only [a-zA-Z0-9][a-zA-Z0-9_.-] are allowed']);
  const old = await b.request('POST', '/v1.18/containers/rn1/rename?name=rn2');
  expect([old.status, old.text]).toEqual([409, `${taken}\n`]);
  for (const id of [one, two]) await b.request('DELETE', `/v1.24/containers/${id}`);
});

test('commit: an unknown change command named lower-cased, as the reference', async () => {
  const c = (await b.request('POST', '/v1.24/containers/create', json({ Image: 'busybox', Cmd: ['true'] }))).json().Id;
  const r = await b.request('POST', `/v1.24/commit?container=${c}&repo=x&tag=y&changes=${encodeURIComponent('BOGUS x')}`);
  expect([r.status, r.json().message]).toEqual([400, 'bogus is not a valid change command']);
  await b.request('DELETE', `/v1.24/containers/${c}`);
});

test('a host port another running container publishes: the start is refused with the reference’s words, the container stays created', async () => {
  const a = (await b.request('POST', '/v1.24/containers/create?name=pa', json({ Image: 'busybox', Cmd: ['sleep', '100'], ExposedPorts: { '80/tcp': {} }, HostConfig: { PortBindings: { '80/tcp': [{ HostPort: '18199' }] } } }))).json().Id;
  expect((await b.request('POST', `/v1.24/containers/${a}/start`)).status).toBe(204);
  const start = async (name: string, binding: { HostIp?: string; HostPort: string }, port = '80/tcp') => {
    const c = (await b.request('POST', `/v1.24/containers/create?name=${name}`, json({ Image: 'busybox', Cmd: ['true'], ExposedPorts: { [port]: {} }, HostConfig: { PortBindings: { [port]: [binding] } } }))).json().Id;
    const s = await b.request('POST', `/v1.24/containers/${c}/start`);
    return { c, s };
  };
  const same = await start('pb', { HostPort: '18199' });
  const ep = /\(([0-9a-f]{64})\)/.exec(same.s.json().message)?.[1];
  expect([same.s.status, same.s.json().message]).toEqual([409, `driver failed programming external connectivity on endpoint pb (${ep}): Bind for 0.0.0.0:18199 failed: port is already allocated`]);
  const st = (await b.request('GET', `/v1.24/containers/${same.c}/json`)).json().State;
  expect([st.Status, st.ExitCode, st.Error]).toEqual(['created', 128, same.s.json().message]);
  const lo = await start('pc', { HostIp: '127.0.0.1', HostPort: '18199' });
  expect(lo.s.json().message).toMatch(/^driver failed programming external connectivity on endpoint pc \([0-9a-f]{64}\): Error starting userland proxy: listen tcp4 127.0.0.1:18199: bind: address already in use$/);
  const udp = await start('pd', { HostPort: '18199' }, '80/udp');
  expect(udp.s.status).toBe(204);
  for (const c of [a, same.c, lo.c, udp.c]) await b.request('DELETE', `/v1.24/containers/${c}?force=1`);
});

test('top: ps failing, in the reference’s words (its first line on stderr, or its exit status)', async () => {
  const c = (await b.request('POST', '/v1.24/containers/create', json({ Image: 'busybox', Cmd: ['sleep', '100'] }))).json().Id;
  await b.request('POST', `/v1.24/containers/${c}/start`);
  const bogus = await b.request('GET', `/v1.24/containers/${c}/top?ps_args=--bogus`);
  expect([bogus.status, bogus.json().message]).toEqual([400, 'ps: error: unknown gnu long option']);
  const none = await b.request('GET', `/v1.18/containers/${c}/top?ps_args=${encodeURIComponent('-p 99999')}`);
  expect([none.status, none.text]).toEqual([400, 'ps: exit status 1\n']);
  await b.request('DELETE', `/v1.24/containers/${c}?force=1`);
});

test('update: Warnings is null when there is nothing to warn about, at 1.24 and 1.20 (the reference’s nil slice)', async () => {
  const c = (await b.request('POST', '/v1.24/containers/create', json({ Image: 'busybox', Cmd: ['true'] }))).json().Id;
  for (const v of ['1.24', '1.20']) {
    const u = await b.request('POST', `/v${v}/containers/${c}/update`, json({ CpuShares: 512 }));
    expect([u.status, u.text]).toEqual([200, '{"Warnings":null}\n']);
  }
  await b.request('DELETE', `/v1.24/containers/${c}`);
});

describe('connect of a container that is not running (the reference at 1.24 and 1.20)', () => {
  const nets = async (c: string) => (await b.request('GET', `/v1.24/containers/${c}/json`)).json().NetworkSettings.Networks;
  const connect = (v: string, net: string, body: Record<string, unknown>) => b.request('POST', `/v${v}/networks/${net}/connect`, json(body));
  beforeAll(async () => {
    expect((await b.request('POST', '/v1.24/networks/create', json({ Name: 'pconn', IPAM: { Config: [{ Subnet: '10.78.0.0/24' }] } }))).status).toBe(201);
  });
  afterAll(async () => {
    await b.request('DELETE', '/v1.24/networks/pconn');
  });

  test('to a network it is configured for: 200 and nothing changes; its start uses what it had', async () => {
    const c = (await b.request('POST', '/v1.24/containers/create?name=pconn1', json({ Image: 'busybox', Cmd: ['sleep', '100'], HostConfig: { NetworkMode: 'pconn' }, NetworkingConfig: { EndpointsConfig: { pconn: { Aliases: ['orig'], IPAMConfig: { IPv4Address: '10.78.0.40' } } } } }))).json().Id;
    const before = await nets(c);
    expect(before.pconn.Aliases).toEqual(['orig']);
    for (const v of ['1.24', '1.20']) {
      const r = await connect(v, 'pconn', { Container: 'pconn1', EndpointConfig: { Aliases: ['zz'], IPAMConfig: { IPv4Address: '10.78.0.50' } } });
      expect([r.status, r.text]).toEqual([200, '']);
      expect(await nets(c)).toEqual(before);
    }
    expect((await b.request('POST', `/v1.24/containers/${c}/start`)).status).toBe(204);
    const after = (await nets(c)).pconn;
    expect([after.IPAddress, after.IPAMConfig, after.Aliases]).toEqual(['10.78.0.40', { IPv4Address: '10.78.0.40' }, ['orig', c.slice(0, 12)]]);
    // running, it is 403 as before
    const again = await connect('1.24', 'pconn', { Container: 'pconn1' });
    expect([again.status, again.json().message]).toEqual([403, 'endpoint with name pconn1 already exists in network pconn']);
    // stopped, the short id stays among its aliases
    await b.request('POST', `/v1.24/containers/${c}/stop?t=0`);
    expect((await nets(c)).pconn.Aliases).toEqual(['orig', c.slice(0, 12)]);
    await b.request('DELETE', `/v1.24/containers/${c}?force=1`);
  });

  test('to another network: the short id is added to its aliases at once, and no connect event is sent', async () => {
    const c = (await b.request('POST', '/v1.24/containers/create?name=pconn2', json({ Image: 'busybox', Cmd: ['sleep', '100'] }))).json().Id;
    const since = Math.floor(Date.now() / 1000) - 1;
    expect((await connect('1.24', 'pconn', { Container: 'pconn2', EndpointConfig: { Aliases: ['a1'] } })).status).toBe(200);
    expect((await connect('1.24', 'pconn', { Container: 'pconn2', EndpointConfig: { Aliases: ['a2'] } })).status).toBe(200);
    expect((await connect('1.24', 'bridge', { Container: 'pconn2' })).status).toBe(200);
    const n = await nets(c);
    expect([n.bridge.Aliases, n.pconn.Aliases, n.pconn.NetworkID]).toEqual([null, ['a1', c.slice(0, 12)], '']);
    expect((await b.request('POST', '/v1.24/networks/pconn/disconnect', json({ Container: 'pconn2' }))).status).toBe(200);
    const until = Math.floor(Date.now() / 1000) + 1;
    const ev = await b.request('GET', `/v1.24/events?since=${since}&until=${until}&filters=${encodeURIComponent('{"type":["network"],"network":["pconn"]}')}`);
    const mine = ev.text.trim().split('\n').map((l) => JSON.parse(l)).filter((e) => e.Actor.Attributes.container === c);
    expect(mine.map((e) => e.Action)).toEqual(['disconnect']);
    await b.request('DELETE', `/v1.24/containers/${c}`);
  });
});

describe('an IP range without a gateway given (the reference: the gateway is the range’s first address it can hand out)', () => {
  // [subnet, range, the gateway, the containers' addresses in order until the range is exhausted]
  test.each([
    ['10.77.0.0/24', '10.77.0.8/30', '10.77.0.8', ['10.77.0.9', '10.77.0.10', '10.77.0.11']],
    ['10.77.0.0/24', '10.77.0.0/30', '10.77.0.1', ['10.77.0.2', '10.77.0.3']],
    ['10.77.0.0/24', '10.77.0.252/30', '10.77.0.252', ['10.77.0.253', '10.77.0.254']],
    ['10.77.0.0/24', '10.77.0.10/31', '10.77.0.10', ['10.77.0.11']],
    ['10.77.0.0/24', '10.77.0.9/32', '10.77.0.9', []],
  ])('%s %s', async (Subnet, IPRange, gateway, want) => {
    const n = await b.request('POST', '/v1.24/networks/create', json({ Name: 'prange', IPAM: { Config: [{ Subnet, IPRange }] } }));
    expect(n.status).toBe(201);
    // inspect shows the IPAM as given (no Gateway)
    expect((await b.request('GET', '/v1.24/networks/prange')).json().IPAM.Config).toEqual([{ Subnet, IPRange }]);
    const ids: string[] = [];
    const got: string[] = [];
    for (;;) {
      const c = (await b.request('POST', '/v1.24/containers/create', json({ Image: 'busybox', Cmd: ['sleep', '100'], HostConfig: { NetworkMode: 'prange' } }))).json().Id;
      ids.push(c);
      const s = await b.request('POST', `/v1.24/containers/${c}/start`);
      if (s.status !== 204) {
        // the reference's 500 (an exhausted pool is no mistake of the client's), the container left created
        expect([s.status, s.json().message]).toEqual([500, `no available IPv4 addresses on this network's address pools: prange (${n.json().Id})`]);
        const st = (await b.request('GET', `/v1.24/containers/${c}/json`)).json().State;
        expect([st.Status, st.ExitCode]).toEqual(['created', 128]);
        break;
      }
      const ep = (await b.request('GET', `/v1.24/containers/${c}/json`)).json().NetworkSettings.Networks.prange;
      expect(ep.Gateway).toBe(gateway);
      got.push(ep.IPAddress);
    }
    expect(got).toEqual(want);
    for (const c of ids) await b.request('DELETE', `/v1.24/containers/${c}?force=1`);
    await b.request('DELETE', '/v1.24/networks/prange');
  });

  test('a gateway given outside the range: the whole range is handed out; a subnet alone shows no Gateway either', async () => {
    expect((await b.request('POST', '/v1.24/networks/create', json({ Name: 'prange', IPAM: { Config: [{ Subnet: '10.77.0.0/24', IPRange: '10.77.0.8/30', Gateway: '10.77.0.1' }] } }))).status).toBe(201);
    const got: string[] = [];
    for (let i = 0; i < 4; i++) {
      const c = (await b.request('POST', '/v1.24/containers/create', json({ Image: 'busybox', Cmd: ['sleep', '100'], HostConfig: { NetworkMode: 'prange' } }))).json().Id;
      expect((await b.request('POST', `/v1.24/containers/${c}/start`)).status).toBe(204);
      got.push((await b.request('GET', `/v1.24/containers/${c}/json`)).json().NetworkSettings.Networks.prange.IPAddress);
      await b.request('DELETE', `/v1.24/containers/${c}?force=1`);
    }
    expect(got.sort()).toEqual(['10.77.0.10', '10.77.0.11', '10.77.0.8', '10.77.0.9']);
    await b.request('DELETE', '/v1.24/networks/prange');
    expect((await b.request('POST', '/v1.24/networks/create', json({ Name: 'prange', IPAM: { Config: [{ Subnet: '10.77.0.0/24' }] } }))).status).toBe(201);
    expect((await b.request('GET', '/v1.20/networks/prange')).json().IPAM.Config).toEqual([{ Subnet: '10.77.0.0/24' }]);
    await b.request('DELETE', '/v1.24/networks/prange');
    // nor a dual-stack one's IPv6 subnet
    const dual = { Name: 'prange', EnableIPv6: true, IPAM: { Config: [{ Subnet: '10.74.0.0/24' }, { Subnet: 'fd00:74::/64' }] } };
    expect((await b.request('POST', '/v1.24/networks/create', json(dual))).status).toBe(201);
    expect((await b.request('GET', '/v1.24/networks/prange')).json().IPAM.Config).toEqual([{ Subnet: '10.74.0.0/24' }, { Subnet: 'fd00:74::/64' }]);
    await b.request('DELETE', '/v1.24/networks/prange');
  });
});

test('--ip equal to the network’s gateway: created, its start 403 (the reference’s, at 1.24 and 1.20), left created', async () => {
  const nets = [
    ['pgw1', { Subnet: '10.77.0.0/24' }, '10.77.0.1'],
    ['pgw2', { Subnet: '10.76.0.0/24', Gateway: '10.76.0.5' }, '10.76.0.5'],
    ['pgw3', { Subnet: '10.75.0.0/24', IPRange: '10.75.0.8/30' }, '10.75.0.8'],
  ] as const;
  for (const [Name, cfg, ip] of nets) {
    expect((await b.request('POST', '/v1.24/networks/create', json({ Name, IPAM: { Config: [cfg] } }))).status).toBe(201);
    for (const v of ['1.24', '1.20']) {
      // (NetworkingConfig is 1.22's: the container is made at 1.24, started at each version)
      const c = await b.request('POST', '/v1.24/containers/create', json({ Image: 'busybox', Cmd: ['true'], HostConfig: { NetworkMode: Name }, NetworkingConfig: { EndpointsConfig: { [Name]: { IPAMConfig: { IPv4Address: ip } } } } }));
      expect(c.status).toBe(201);
      const s = await b.request('POST', `/v${v}/containers/${c.json().Id}/start`);
      expect([s.status, s.text]).toEqual([403, v === '1.24' ? '{"message":"Address already in use"}\n' : 'Address already in use\n']);
      const st = (await b.request('GET', `/v1.24/containers/${c.json().Id}/json`)).json().State;
      expect([st.Status, st.ExitCode]).toEqual(['created', 128]);
      await b.request('DELETE', `/v1.24/containers/${c.json().Id}`);
    }
    await b.request('DELETE', `/v1.24/networks/${Name}`);
  }
});
