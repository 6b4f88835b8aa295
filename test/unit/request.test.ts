import { adaptResources, CgroupSupport, normaliseCreateBody, validateCreate, mergeImageConfig, parseBind, validateName } from '../../src/translate/request/create';

const bad = (body: object, v = '1.24') => {
  try {
    validateCreate(normaliseCreateBody(body, v), v);
  } catch (e) {
    return (e as Error).message;
  }
  return 'ok';
};

describe('create bodies per version', () => {
  test('Cmd and Entrypoint strings become arrays; StopSignal numbers become strings', () => {
    const r = normaliseCreateBody({ Image: 'x', Cmd: 'echo hi', Entrypoint: 'sh', StopSignal: 9 }, '1.24');
    expect(r.config.Cmd).toEqual(['echo hi']);
    expect(r.config.Entrypoint).toEqual(['sh']);
    expect(r.config.StopSignal).toBe('9');
  });
  test('1.18 clients put resources in the top-level Config', () => {
    const r = normaliseCreateBody({ Image: 'x', Memory: 1 << 26, CpuShares: 512, Cpuset: '0' }, '1.18');
    expect(r.hostConfig).toEqual(expect.objectContaining({ Memory: 1 << 26, CpuShares: 512, CpusetCpus: '0' }));
    expect((r.config as Record<string, unknown>).Memory).toBeUndefined();
    expect(normaliseCreateBody({ Image: 'x', Memory: 1 << 26 }, '1.24').hostConfig.Memory).toBeUndefined();
  });
  test('fields the version does not have are dropped', () => {
    expect(normaliseCreateBody({ Image: 'x', Healthcheck: { Test: ['NONE'] } }, '1.22').config.Healthcheck).toBeUndefined();
    expect(normaliseCreateBody({ Image: 'x', StopSignal: 'SIGINT' }, '1.21').config.StopSignal).toBeUndefined();
    expect(normaliseCreateBody({ Image: 'x', NetworkingConfig: { EndpointsConfig: {} } }, '1.21').networkingConfig).toEqual({});
  });
  test('empty body', () => {
    expect(() => normaliseCreateBody(undefined, '1.24')).toThrow('Config cannot be empty in order to create a container');
  });
});

describe('validation with the engine messages', () => {
  test.each([
    [{ HostConfig: { MemorySwappiness: 101 } }, 'Invalid value: 101, valid memory swappiness range is 0-100'],
    [{ HostConfig: { ShmSize: -1 } }, 'SHM size can not be less than 0'],
    [{ HostConfig: { MemorySwap: 1 << 30 } }, 'You should always set the Memory limit when using Memoryswap limit, see usage'],
    [{ HostConfig: { Memory: 1 << 30, MemorySwap: 1 << 29 } }, 'Minimum memoryswap limit should be larger than memory limit, see usage'],
    [{ HostConfig: { Memory: 1000 } }, 'Minimum memory limit allowed is 6MB'],
    [{ Healthcheck: { Interval: 500 } }, 'Interval in Healthcheck cannot be less than 1ms'],
    [{ Healthcheck: { Timeout: 10 } }, 'Timeout in Healthcheck cannot be less than 1ms'],
    [{ Hostname: 'bad_host!' }, 'invalid hostname format: bad_host!'],
    [{ HostConfig: { CapAdd: ['BOGUS'] } }, 'invalid CapAdd: unknown capability: "CAP_BOGUS"'],
    [{ HostConfig: { CapDrop: ['nope'] } }, 'invalid CapDrop: unknown capability: "CAP_NOPE"'],
    [{ HostConfig: { RestartPolicy: { Name: 'sometimes', MaximumRetryCount: 0 } } }, "invalid restart policy 'sometimes'"],
    [{ HostConfig: { RestartPolicy: { Name: 'always', MaximumRetryCount: 3 } } }, "maximum retry count cannot be used with restart policy 'always'"],
    [{ HostConfig: { LogConfig: { Type: 'bogus', Config: {} } } }, 'error looking up logging plugin bogus: plugin "bogus" not found'],
    [{ HostConfig: { NetworkMode: 'container:' } }, 'Invalid network mode: invalid container format container:<name|id>'],
    [{ HostConfig: { CpuQuota: 500 } }, 'CPU cfs quota can not be less than 1ms (i.e. 1000)'],
    [{ HostConfig: { CpuPeriod: 500 } }, 'CPU cfs period can not be less than 1ms (i.e. 1000) or larger than 1s (i.e. 1000000)'],
    [{ HostConfig: { Binds: ['/a:b'] } }, "invalid volume specification: '/a:b': invalid mount config for type \"bind\": invalid mount path: 'b' mount path must be absolute"],
    [{ HostConfig: { Binds: ['/a:/b:zz'] } }, 'invalid mode: zz'],
    [{ HostConfig: { Binds: ['/tmp'] } }, "invalid volume specification: '/tmp'"],
    [{ HostConfig: { Ulimits: [{ Name: 'bogus', Soft: 1, Hard: 1 }] } }, 'invalid ulimit type: bogus'],
    [{ HostConfig: { OomScoreAdj: 2000 } }, 'Invalid value 2000, range for oom score adj is [-1000, 1000]'],
    // the reference (20.10) at 1.24, asked with curl
    [{ StopSignal: 'FOO' }, 'Invalid signal: FOO'],
    [{ StopSignal: 'SIGUNUSED' }, 'Invalid signal: SIGUNUSED'],
    [{ StopSignal: 'RTMIN+16' }, 'Invalid signal: RTMIN+16'],
    [{ StopSignal: 'RTMAX-15' }, 'Invalid signal: RTMAX-15'],
    [{ StopSignal: '0' }, 'Invalid signal: 0'],
    [{ StopSignal: ' 9' }, 'Invalid signal:  9'],
    [{ Env: ['=foo'] }, 'invalid environment variable: =foo'],
    [{ Env: ['A=1', ''] }, 'invalid environment variable: '],
    [{ WorkingDir: 'rel', StopSignal: 'X', Env: ['=a'] }, "the working directory 'rel' is invalid, it needs to be an absolute path"],
    [{ StopSignal: 'X', Env: ['=a'], Healthcheck: { Interval: 1 } }, 'Invalid signal: X'],
    [{ Env: ['=a'], Healthcheck: { Interval: 1 } }, 'invalid environment variable: =a'],
  ])('%j', (body, msg) => expect(bad({ Image: 'x', ...body })).toBe(msg));

  test('stop signals the reference takes: any non-zero integer, its names with or without SIG in any case', () => {
    for (const sig of ['99', '-1', '65', 'sigkill', 'RTMIN+3', 'SIGRTMAX-1', 'RTMAX-14', 'CLD', 'SIGRTMIN', 'TERM'])
      expect([sig, bad({ Image: 'x', StopSignal: sig })]).toEqual([sig, 'ok']);
    expect(bad({ Image: 'x', Env: ['A', 'B=1'] })).toBe('ok');
  });

  test('version-dependent rules', () => {
    expect(bad({ Image: 'x', Hostname: 'bad_host!' }, '1.23')).toBe('ok');
    expect(bad({ Image: 'x', HostConfig: { Binds: ['vol:/data'] } }, '1.21')).toMatch(/includes invalid characters for a local volume name/);
    expect(bad({ Image: 'x', HostConfig: { Binds: ['vol:/data:ro'] } }, '1.22')).toBe('ok');
    expect(bad({ Image: 'x', HostConfig: { RestartPolicy: { Name: 'unless-stopped', MaximumRetryCount: 0 } } }, '1.21')).toBe("invalid restart policy 'unless-stopped'");
    expect(bad({ Image: 'x', HostConfig: { NetworkMode: 'mynet' } }, '1.21')).toBe('invalid --net: mynet');
    expect(bad({ Image: 'x', HostConfig: { NetworkMode: 'mynet' } }, '1.22')).toBe('ok');
  });

  test('names and binds', () => {
    expect(() => validateName('bad name')).toThrow('Invalid container name (bad name), only [a-zA-Z0-9][a-zA-Z0-9_.-] are allowed');
    expect(() => validateName('/ok_name-1.x')).not.toThrow();
    expect(parseBind('/host:/ctr:ro,rshared', '1.24')).toEqual({ source: '/host', destination: '/ctr', mode: 'ro,rshared', named: false });
  });
});

describe('image config merge (the engine’s rules)', () => {
  const img = { Env: ['PATH=/img', 'A=1'], Cmd: ['sh'], Entrypoint: ['/entry'], WorkingDir: '/w', User: 'app', ExposedPorts: { '80/tcp': {} }, Labels: { a: 'img', b: 'img' }, Volumes: { '/v': {} }, StopSignal: 'SIGINT', Healthcheck: { Test: ['CMD', 'true'], Interval: 5e9 } };
  test('request wins; env merged by key; labels merged', () => {
    const m = mergeImageConfig({ Env: ['A=2'], Labels: { b: 'req' } }, img);
    expect(m.Env).toEqual(['A=2', 'PATH=/img']);
    expect(m.Labels).toEqual({ a: 'img', b: 'req' });
    expect(m.WorkingDir).toBe('/w');
    expect(m.User).toBe('app');
    expect(m.StopSignal).toBe('SIGINT');
    expect(m.Volumes).toEqual({ '/v': {} });
    expect(m.ExposedPorts).toEqual({ '80/tcp': {} });
  });
  test('Cmd/Entrypoint: unset inherits both; a request entrypoint drops the image Cmd; "" resets', () => {
    expect(mergeImageConfig({}, img)).toEqual(expect.objectContaining({ Entrypoint: ['/entry'], Cmd: ['sh'] }));
    expect(mergeImageConfig({ Cmd: ['ls'] }, img)).toEqual(expect.objectContaining({ Entrypoint: ['/entry'], Cmd: ['ls'] }));
    expect(mergeImageConfig({ Entrypoint: ['/other'] }, img)).toEqual(expect.objectContaining({ Entrypoint: ['/other'] }));
    expect(mergeImageConfig({ Entrypoint: ['/other'] }, img).Cmd).toBeUndefined();
    expect(mergeImageConfig({ Entrypoint: [''] }, img)).toEqual(expect.objectContaining({ Entrypoint: null, Cmd: null }));
  });
  test('healthcheck inherits field by field', () => {
    expect(mergeImageConfig({ Healthcheck: { Retries: 3 } }, img).Healthcheck).toEqual({ Test: ['CMD', 'true'], Interval: 5e9, Timeout: undefined, Retries: 3, StartPeriod: undefined });
  });
});

describe("the host-dependent resource checks (the reference on this host: cgroup v1 without blkio weights)", () => {
  const here: CgroupSupport = { swapLimit: true, memorySwappiness: true, kernelMemory: true, oomKillDisable: true, blkioWeight: false, blkioWeightDevice: false };
  const all: CgroupSupport = { ...here, blkioWeight: true, blkioWeightDevice: true };
  const none: CgroupSupport = { swapLimit: false, memorySwappiness: false, kernelMemory: false, oomKillDisable: false, blkioWeight: false, blkioWeightDevice: false };
  const OOM = 'OOM killer is disabled for the container, but no memory limit is set, this can result in the system running out of resources.';
  const WEIGHT = 'Your kernel does not support Block I/O weight or the cgroup is not mounted. Weight discarded.';
  test('warnings in the engine’s order; what the kernel lacks is discarded', () => {
    expect(adaptResources({ OomKillDisable: true }, here).warnings).toEqual([OOM]);
    expect(adaptResources({ OomKillDisable: true, Memory: 10_000_000 }, here).warnings).toEqual([]);
    const w = adaptResources({ BlkioWeight: 300, BlkioWeightDevice: [{ Path: '/dev/null', Weight: 100 }], OomKillDisable: true, KernelMemory: 10_000_000 }, here);
    expect(w.warnings).toEqual([
      'Specifying a kernel memory limit is deprecated and will be removed in a future release.',
      OOM,
      WEIGHT,
      'Your kernel does not support Block I/O weight_device or the cgroup is not mounted. Weight-device discarded.',
    ]);
    expect(w.hostConfig).toEqual(expect.objectContaining({ BlkioWeight: 0, BlkioWeightDevice: [], KernelMemory: 10_000_000, OomKillDisable: true }));
    // discarded before the range check, as the reference (201, BlkioWeight 0)
    expect(adaptResources({ BlkioWeight: 5 }, here)).toEqual({ hostConfig: { BlkioWeight: 0 }, warnings: [WEIGHT] });
    expect(() => adaptResources({ BlkioWeight: 5 }, all)).toThrow('Range of blkio weight is from 10 to 1000');
    expect(() => adaptResources({ KernelMemory: 1000 }, here)).toThrow('Minimum kernel memory limit allowed is 6MB');
    expect(adaptResources({ MemorySwappiness: 50, Memory: 10_000_000 }, here).warnings).toEqual([]);
  });
  test('a kernel without swap accounting, swappiness, kernel memory or the OOM switch (the engine’s words)', () => {
    const r = adaptResources({ Memory: 10_000_000, MemorySwappiness: 10, KernelMemory: 1000, OomKillDisable: true }, none);
    expect(r.warnings).toEqual([
      'Your kernel does not support swap limit capabilities or the cgroup is not mounted. Memory limited without swap.',
      'Your kernel does not support memory swappiness capabilities or the cgroup is not mounted. Memory swappiness discarded.',
      'Specifying a kernel memory limit is deprecated and will be removed in a future release.',
      'Your kernel does not support kernel memory limit capabilities or the cgroup is not mounted. Limitation discarded.',
      'Your kernel does not support OomKillDisable. OomKillDisable discarded.',
    ]);
    expect(r.hostConfig).toEqual({ Memory: 10_000_000, MemorySwap: -1, MemorySwappiness: null, KernelMemory: 0, OomKillDisable: false });
    expect(adaptResources({ MemorySwappiness: -1 }, none).warnings).toEqual([]);
  });
});
