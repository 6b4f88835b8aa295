import { isSecureRegistry, parseChallenge } from '../../src/registry/client';
import { toRegistryConfig } from '../../src/translate/response/system';
import { decodeAuthHeader } from '../../src/translate/request/auth';
import { selectPlatform } from '../../src/services/registry';
import { applyChanges, splitWords } from '../../src/translate/request/changes';

describe('registry client pieces', () => {
  test('WWW-Authenticate challenges', () => {
    expect(parseChallenge('Bearer realm="https://auth.example/token",service="registry.example",scope="repository:a/b:pull,push"')).toEqual({
      scheme: 'bearer',
      params: { realm: 'https://auth.example/token', service: 'registry.example', scope: 'repository:a/b:pull,push' },
    });
    expect(parseChallenge('Basic realm="berth-test"')).toEqual({ scheme: 'basic', params: { realm: 'berth-test' } });
    expect(parseChallenge(null)).toBeUndefined();
  });
  test('X-Registry-Auth in both forms of the spec, base64 and base64url; junk is anonymous', () => {
    const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    expect(decodeAuthHeader(enc({ username: 'u', password: 'p', email: 'e' }))).toMatchObject({ username: 'u', password: 'p' });
    expect(decodeAuthHeader(Buffer.from('{"registrytoken":"tok"}').toString('base64'))).toMatchObject({ registrytoken: 'tok' });
    expect(decodeAuthHeader('%%%')).toEqual({});
    expect(decodeAuthHeader(undefined)).toEqual({});
  });
  test("insecure registries as the engine's: a named index, an address in an insecure CIDR, 127.0.0.0/8 always", async () => {
    const lookup = async (h: string) => ({ localhost: ['127.0.0.1', '::1'], 'reg.lan': ['10.1.2.3'] })[h] ?? Promise.reject(new Error('no such host'));
    expect(await isSecureRegistry('127.0.0.1:5000', [], lookup)).toBe(false);
    expect(await isSecureRegistry('127.9.9.9', [], lookup)).toBe(false);
    expect(await isSecureRegistry('localhost:5000', [], lookup)).toBe(false);
    // the engine's default CIDR is IPv4's loopback only
    expect(await isSecureRegistry('[::1]:5000', [], lookup)).toBe(true);
    expect(await isSecureRegistry('registry.example:5000', [], lookup)).toBe(true);
    expect(await isSecureRegistry('registry.example:5000', ['registry.example:5000'], lookup)).toBe(false);
    expect(await isSecureRegistry('registry.example:5000', ['http://registry.example:5000'], lookup)).toBe(false);
    // a name entry matches the index name exactly (with its port)
    expect(await isSecureRegistry('registry.example:5000', ['registry.example'], lookup)).toBe(true);
    expect(await isSecureRegistry('reg.lan:5000', ['10.1.0.0/16'], lookup)).toBe(false);
    expect(await isSecureRegistry('reg.lan:5000', ['10.2.0.0/16'], lookup)).toBe(true);
    expect(await isSecureRegistry('10.1.9.9:443', ['10.1.0.0/16'], lookup)).toBe(false);
    expect(await isSecureRegistry('[fd00::5]:5000', ['fd00::/8'], lookup)).toBe(false);
    expect(await isSecureRegistry('docker.io', ['0.0.0.0/0'], lookup)).toBe(true);
  });
  test("/info's RegistryConfig: CIDRs as Go prints them, before 127.0.0.0/8; a scheme dropped from names", () => {
    const rc = toRegistryConfig(['10.1.2.3/16', 'http://reg:5000', '10.1.0.0/16'], []) as { InsecureRegistryCIDRs: string[]; IndexConfigs: Record<string, unknown> };
    expect(rc.InsecureRegistryCIDRs).toEqual(['10.1.0.0/16', '127.0.0.0/8']);
    expect(Object.keys(rc.IndexConfigs)).toEqual(['docker.io', 'reg:5000']);
  });
  test('manifest list selection: linux/amd64', () => {
    const idx = {
      manifests: [
        { digest: 'sha256:arm', platform: { os: 'linux', architecture: 'arm64' } },
        { digest: 'sha256:amd', platform: { os: 'linux', architecture: 'amd64' } },
        { digest: 'sha256:win', platform: { os: 'windows', architecture: 'amd64' } },
      ],
    };
    expect(selectPlatform(idx)).toBe('sha256:amd');
    expect(selectPlatform({ manifests: [idx.manifests[0]] })).toBeUndefined();
  });
});

describe('commit/import changes', () => {
  test('each instruction like the engine', () => {
    const c = applyChanges({ Env: ['PATH=/bin'], Cmd: ['sh'] }, [
      'CMD ["echo", "hi"]',
      'ENV A=1 B="two words"',
      'ENV PATH /usr/bin',
      'EXPOSE 80 53/udp',
      'LABEL a=b',
      'USER nobody',
      'VOLUME ["/data"]',
      'WORKDIR /srv',
      'WORKDIR app',
      'ONBUILD RUN true',
    ]);
    expect(c).toEqual({
      Cmd: ['echo', 'hi'],
      Env: ['PATH=/usr/bin', 'A=1', 'B=two words'],
      ExposedPorts: { '80/tcp': {}, '53/udp': {} },
      Labels: { a: 'b' },
      User: 'nobody',
      Volumes: { '/data': {} },
      WorkingDir: '/srv/app',
      OnBuild: ['RUN true'],
    });
    expect(applyChanges({}, ['CMD echo hi']).Cmd).toEqual(['/bin/sh', '-c', 'echo hi']);
    expect(applyChanges({ Cmd: ['x'] }, ['ENTRYPOINT ["/e"]'])).toEqual({ Entrypoint: ['/e'], Cmd: null });
    expect(() => applyChanges({}, ['RUN rm -rf /'])).toThrow('run is not a valid change command');
    expect(() => applyChanges({}, ['EXPOSE http'])).toThrow('Invalid containerPort: http');
    expect(splitWords(`a="b c" d='e f' g\\ h`)).toEqual(['a=b c', "d=e f", 'g h']);
  });
});
