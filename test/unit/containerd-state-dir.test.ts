import { stateFromArgs, stateFromConfig } from '../../src/containerd/state-dir';

describe("containerd's state directory, from its command line and configuration", () => {
  const files: Record<string, string> = {
    '/etc/containerd/config.toml': 'version = 2\nroot = "/var/lib/containerd"\n',
    '/tmp/c/config.toml': 'version = 2\nroot = "/tmp/c/root"\nstate = "/tmp/c/state"\n[plugins."x"]\n  state = "/not/this"\n',
    '/tmp/d/config.toml': "[grpc]\nstate = '/not/top-level'\n",
  };
  const read = (p: string) => files[p];

  test('--state wins; else the configuration named by --config/-c (or the default one); else /run/containerd', () => {
    expect(stateFromArgs(['--state', '/s', '--config', '/tmp/c/config.toml'], read)).toBe('/s');
    expect(stateFromArgs(['--state=/s2'], read)).toBe('/s2');
    expect(stateFromArgs(['--config', '/tmp/c/config.toml'], read)).toBe('/tmp/c/state');
    expect(stateFromArgs(['-c', '/tmp/c/config.toml'], read)).toBe('/tmp/c/state');
    expect(stateFromArgs(['--config=/tmp/c/config.toml'], read)).toBe('/tmp/c/state');
    expect(stateFromArgs([], read)).toBe('/run/containerd');
    expect(stateFromArgs(['-c', '/tmp/d/config.toml'], read)).toBe('/run/containerd');
    expect(stateFromArgs(['-c', '/missing.toml'], read)).toBe('/run/containerd');
  });

  test('only the top-level key counts; basic and literal strings', () => {
    expect(stateFromConfig('state = "/a\\\\b"\n')).toBe('/a\\b');
    expect(stateFromConfig("  state='/lit'\n")).toBe('/lit');
    expect(stateFromConfig('[debug]\nstate = "/x"\n')).toBeUndefined();
  });
});
