// The inspect and list shapes where the reference engine's answers (test/golden/containers) decided them.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { contentSize } from '../../src/fs/usage';
import { newState } from '../../src/store/containers';
import { toContainerInspect, toContainerSummary } from '../../src/translate/response/containers';
import { jsonDiff, normalise } from '../helpers/golden';
import type { ContainerRecord, MountPoint } from '../../src/types/container';

const ID = 'a'.repeat(64);

function record(over: Partial<ContainerRecord> = {}): ContainerRecord {
  return {
    Id: ID,
    Name: '/c',
    Created: '2024-01-01T00:00:00.5Z',
    Path: 'sleep',
    Args: ['300'],
    Config: { Image: 'busybox', Cmd: ['sleep', '300'], Hostname: ID.slice(0, 12), ExposedPorts: { '8080/tcp': {} } },
    HostConfig: { NetworkMode: 'none', Memory: 64 << 20, MemorySwap: 128 << 20, CpuShares: 512 },
    NetworkingConfig: {},
    Image: 'sha256:' + 'b'.repeat(64),
    ImageName: 'busybox',
    State: newState(),
    RestartCount: 0,
    LogPath: `/data/containers/${ID}/${ID}-json.log`,
    ResolvConfPath: `/data/containers/${ID}/resolv.conf`,
    HostnamePath: `/data/containers/${ID}/hostname`,
    HostsPath: `/data/containers/${ID}/hosts`,
    Driver: 'overlayfs',
    HasBeenManuallyStopped: false,
    Networks: { none: { NetworkID: 'n'.repeat(64), Aliases: null, IPAMConfig: null, Links: null } },
    ...over,
  };
}

const running = (): ContainerRecord => record({ State: { ...newState(), Status: 'running', Running: true, Pid: 42, StartedAt: '2024-01-01T00:00:01Z' } });
const exited = (): ContainerRecord =>
  record({ State: { ...newState(), Status: 'exited', ExitCode: 137, StartedAt: '2024-01-01T00:00:01Z', FinishedAt: '2024-01-01T00:00:02Z' } });

describe('inspect', () => {
  test('the files under the data root are shown once the container has started', () => {
    for (const f of ['ResolvConfPath', 'HostnamePath', 'HostsPath', 'LogPath']) {
      expect(toContainerInspect(record(), '1.24')[f]).toBe('');
      expect(toContainerInspect(exited(), '1.24')[f]).toMatch(/^\/data\/containers\//);
    }
  });

  test('a network shows its id from the first start on', () => {
    const nid = (r: ContainerRecord) => ((toContainerInspect(r, '1.24').NetworkSettings as any).Networks.none.NetworkID as string);
    expect(nid(record())).toBe('');
    expect(nid(running())).toBe('n'.repeat(64));
    expect(nid(exited())).toBe('n'.repeat(64));
  });

  // As the reference (test/golden/scenarios, "volumes: ..."): Type wherever Mounts is sent (the spec's mount object
  // does not name it), Name/Driver/Propagation from 1.22; the list leaves an anonymous volume's Source empty.
  test('Mounts: Type at every version, the spec\'s fields from 1.22, no Source for an anonymous volume in the list', () => {
    const MountPoints: MountPoint[] = [
      { Type: 'volume', Name: 'v'.repeat(64), Source: '/data/volumes/vvv/_data', Destination: '/anon', Driver: 'local', Mode: '', RW: true, Propagation: '', Anonymous: true },
      { Type: 'bind', Source: '/tmp', Destination: '/host', Mode: 'ro', RW: false, Propagation: 'rprivate' },
    ];
    const r = running();
    r.MountPoints = MountPoints;
    expect(toContainerInspect(r, '1.20').Mounts).toEqual([
      { Type: 'volume', Source: '/data/volumes/vvv/_data', Destination: '/anon', Mode: '', RW: true },
      { Type: 'bind', Source: '/tmp', Destination: '/host', Mode: 'ro', RW: false },
    ]);
    expect(toContainerInspect(r, '1.24').Mounts).toEqual([
      { Type: 'volume', Name: 'v'.repeat(64), Source: '/data/volumes/vvv/_data', Destination: '/anon', Driver: 'local', Mode: '', RW: true, Propagation: '' },
      { Type: 'bind', Source: '/tmp', Destination: '/host', Mode: 'ro', RW: false, Propagation: 'rprivate' },
    ]);
    expect((toContainerSummary(r, '1.24', 0) as { Mounts: { Source: string }[] }).Mounts.map((m) => m.Source)).toEqual(['', '/tmp']);
  });

  test('GraphDriver: overlay2, with the snapshot directories gathered for it', () => {
    const data = { LowerDir: '/s/2/fs:/s/1/fs', UpperDir: '/s/3/fs', WorkDir: '/s/3/work' };
    expect(toContainerInspect(record(), '1.24', { graphDriverData: data })).toEqual(expect.objectContaining({ Driver: 'overlay2', GraphDriver: { Data: data, Name: 'overlay2' } }));
    expect(toContainerInspect(record(), '1.24').GraphDriver).toEqual({ Data: null, Name: 'overlay2' });
  });

  test('HostConfig: unset lists and limits are null, IpcMode shareable, no DiskQuota', () => {
    const hc = toContainerInspect(record(), '1.24').HostConfig as Record<string, unknown>;
    expect(hc).toEqual(expect.objectContaining({ PortBindings: null, Dns: null, DnsOptions: null, DnsSearch: null, Devices: null, MemorySwappiness: null, PidsLimit: null, IpcMode: 'shareable' }));
    expect(hc).not.toHaveProperty('DiskQuota');
  });

  test('Config shows the resources up to 1.19 and the network fields up to 1.20; from 1.21 unset ones are left out', () => {
    const cfg = (v: string, r = record()) => toContainerInspect(r, v).Config as Record<string, unknown>;
    expect(cfg('1.19')).toEqual(expect.objectContaining({ Memory: 64 << 20, MemorySwap: 128 << 20, CpuShares: 512, Cpuset: '' }));
    expect(cfg('1.20')).not.toHaveProperty('Memory');
    expect(cfg('1.20')).toEqual(expect.objectContaining({ MacAddress: '', NetworkDisabled: false, VolumeDriver: '' }));
    for (const f of ['MacAddress', 'NetworkDisabled', 'VolumeDriver']) expect(cfg('1.21')).not.toHaveProperty(f);
    const set = record({ Config: { ...record().Config, MacAddress: '02:42:ac:11:00:02', NetworkDisabled: true } });
    expect(cfg('1.24', set)).toEqual(expect.objectContaining({ MacAddress: '02:42:ac:11:00:02', NetworkDisabled: true }));
  });

  test('up to 1.20 Ports is null unless the container runs', () => {
    const ports = (r: ContainerRecord, v: string) => (toContainerInspect(r, v).NetworkSettings as Record<string, unknown>).Ports;
    expect(ports(record(), '1.20')).toBeNull();
    expect(ports(exited(), '1.18')).toBeNull();
    expect(ports(running(), '1.20')).toEqual({});
    expect(ports(exited(), '1.21')).toEqual({});
  });

  test('sizes are shown when asked for, zero included (1.22 on)', () => {
    expect(toContainerInspect(record(), '1.22', { sizeRw: 0, sizeRootFs: 100 })).toEqual(expect.objectContaining({ SizeRw: 0, SizeRootFs: 100 }));
  });
});

describe('list', () => {
  test('a zero size is left out, as the engine does', () => {
    const s = toContainerSummary(record(), '1.24', Date.now(), { sizeRw: 0, sizeRootFs: 100 });
    expect(s).not.toHaveProperty('SizeRw');
    expect(s.SizeRootFs).toBe(100);
    expect(toContainerSummary(record(), '1.24', Date.now(), { sizeRw: 5, sizeRootFs: 105 })).toEqual(expect.objectContaining({ SizeRw: 5, SizeRootFs: 105 }));
  });

  // Asked of the 20.10 reference (GET /v1.24/containers/json; the same at 1.18): Path and Args of each container
  // created with this Cmd/Entrypoint, and the Command it listed. The docker CLI's `ps` shows it as it is.
  test.each([
    ['/bin/sh', ['-c', 'echo hi'], "/bin/sh -c 'echo hi'"], // CMD echo hi, ENTRYPOINT echo hi (shell form, built)
    ['sh', ['-c', "echo 'a b'"], "sh -c 'echo 'a b''"], // quotes inside are not escaped
    ['echo', ['x"y', 'p q"r'], 'echo x"y \'p q"r\''],
    ['sh', ['-c', 'a\tb'], 'sh -c a\tb'], // only a space is quoted
    ['echo', ['a\nb'], 'echo a\nb'],
    ['sh', [], 'sh'],
    ['echo', [''], 'echo '],
    ['/bin/my prog', ['a b'], "/bin/my prog 'a b'"], // the path as it is
  ])('Command of %s %j is %j', (p, args, command) => {
    expect(toContainerSummary(record({ Path: p, Args: args }), '1.24', Date.now()).Command).toBe(command);
  });
});

describe('contentSize', () => {
  test('counts file sizes once per inode and no directory', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'berth-usage-'));
    try {
      fs.mkdirSync(path.join(dir, 'a/b'), { recursive: true });
      expect(await contentSize(dir)).toBe(0);
      fs.writeFileSync(path.join(dir, 'a/b/f'), 'hello');
      fs.linkSync(path.join(dir, 'a/b/f'), path.join(dir, 'a/g'));
      fs.symlinkSync('b/f', path.join(dir, 'a/l'));
      expect(await contentSize(dir)).toBe(5 + 3);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('golden comparison', () => {
  test('reports keys on one side, type and value differences', () => {
    expect(jsonDiff({ a: 1, b: [1], c: { d: 'x' } }, { a: '1', b: [1, 2], c: { d: 'y', e: null } })).toEqual([
      '$.a: number 1 in the reference, string "1" in berth',
      '$.b: 1 items in the reference, 2 in berth: [1] vs [1,2]',
      '$.c.e: only in berth',
      '$.c.d: "x" in the reference, "y" in berth',
    ]);
    expect(jsonDiff({ a: null }, {})).toEqual(['$.a: only in the reference']);
  });

  test('normalises instance-specific values only', () => {
    const ids = { running: ID };
    const n = normalise(
      { Id: ID, Created: '2024-01-01T00:00:00.123Z', Status: 'Up 3 seconds', State: { Pid: 7, Status: 'running', FinishedAt: '0001-01-01T00:00:00Z' }, Config: { Hostname: ID.slice(0, 12), Memory: 5 }, HostsPath: '', LogPath: '/x' },
      ids,
    );
    expect(n).toEqual({ Id: '{running}', Created: '<time>', Status: 'Up <duration>', State: { Pid: 1, Status: 'running', FinishedAt: '0001-01-01T00:00:00Z' }, Config: { Hostname: '{running:12}', Memory: 5 }, HostsPath: '', LogPath: '<path>' });
  });
});
