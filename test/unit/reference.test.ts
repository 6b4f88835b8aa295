import { parseReference, familiarName, normalizeTagged, fullName, withDefaultTag, isFullId } from '../../src/translate/reference';

describe('image references like the engine', () => {
  test.each([
    ['busybox', 'docker.io/library/busybox:latest', 'busybox:latest'],
    ['busybox:1.36', 'docker.io/library/busybox:1.36', 'busybox:1.36'],
    ['user/app', 'docker.io/user/app:latest', 'user/app:latest'],
    ['localhost:5000/app:v1', 'localhost:5000/app:v1', 'localhost:5000/app:v1'],
    ['127.0.0.1:5000/a/b/c', '127.0.0.1:5000/a/b/c:latest', '127.0.0.1:5000/a/b/c:latest'],
    ['localhost/app', 'localhost/app:latest', 'localhost/app:latest'],
    ['docker.io/library/busybox:latest', 'docker.io/library/busybox:latest', 'busybox:latest'],
    ['index.docker.io/library/busybox', 'docker.io/library/busybox:latest', 'busybox:latest'],
    ['example.com/x', 'example.com/x:latest', 'example.com/x:latest'],
  ])('%s', (input, full, familiar) => {
    expect(normalizeTagged(input)).toBe(full);
    expect(familiarName(withDefaultTag(parseReference(input)))).toBe(familiar);
  });

  test('digests keep no default tag', () => {
    const d = 'sha256:' + 'a'.repeat(64);
    const r = parseReference(`busybox@${d}`);
    expect(fullName(withDefaultTag(r))).toBe(`docker.io/library/busybox@${d}`);
    expect(familiarName(r)).toBe(`busybox@${d}`);
  });

  test('bad references get the engine messages', () => {
    expect(() => parseReference('BusyBox')).toThrow('invalid reference format: repository name must be lowercase');
    expect(() => parseReference('a b')).toThrow('invalid reference format');
    expect(() => parseReference('busybox:')).toThrow('invalid reference format');
    expect(() => parseReference('busybox@sha256:12')).toThrow('invalid reference format');
    expect(() => parseReference('a'.repeat(64).replace(/a/g, 'b'))).toThrow(/cannot specify 64-byte hexadecimal strings/);
    expect(() => parseReference('')).toThrow('invalid reference format');
  });

  test('ids', () => {
    expect(isFullId('sha256:' + 'f'.repeat(64))).toBe(true);
    expect(isFullId('f'.repeat(64))).toBe(true);
    expect(isFullId('f'.repeat(12))).toBe(false);
  });
});
