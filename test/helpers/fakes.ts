// Fake backends for handler unit tests: only the methods a test gives exist; any other call fails the test with
// the method's name. And a container record to hand out.
import { newState } from '../../src/store/containers';
import type { ContainerRecord } from '../../src/types/container';

export function fake<T extends object>(impl: Partial<T>): T {
  return new Proxy(impl as T, {
    get(target, prop, receiver) {
      if (prop in target || typeof prop === 'symbol' || prop === 'then') return Reflect.get(target, prop, receiver);
      return () => {
        throw new Error(`unexpected backend call: ${String(prop)}`);
      };
    },
  });
}

export const CONTAINER_ID = 'c'.repeat(64);

export function containerRecord(over: Partial<ContainerRecord> = {}): ContainerRecord {
  const id = over.Id ?? CONTAINER_ID;
  return {
    Id: id,
    Name: '/web',
    Created: '2024-01-01T00:00:00.5Z',
    Path: 'sleep',
    Args: ['300'],
    Config: { Image: 'busybox', Cmd: ['sleep', '300'], Hostname: id.slice(0, 12), Labels: { tier: 'front' } },
    HostConfig: { NetworkMode: 'none' },
    NetworkingConfig: {},
    Image: 'sha256:' + 'b'.repeat(64),
    ImageName: 'busybox',
    State: newState(),
    RestartCount: 0,
    LogPath: `/data/containers/${id}/${id}-json.log`,
    ResolvConfPath: `/data/containers/${id}/resolv.conf`,
    HostnamePath: `/data/containers/${id}/hostname`,
    HostsPath: `/data/containers/${id}/hosts`,
    Driver: 'overlayfs',
    HasBeenManuallyStopped: false,
    ...over,
  };
}

/** The message a throwing call gives, or 'ok' when it returns. */
export function thrownMessage(f: () => unknown): string {
  try {
    f();
    return 'ok';
  } catch (e) {
    return (e as Error).message;
  }
}
