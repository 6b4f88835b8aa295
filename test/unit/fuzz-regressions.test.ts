// Pure pieces of the fuzz fixes (issue 19): own-key lookups, label filters, tag checks, JSON depth.
import { thrownMessage } from '../helpers/fakes';
import { own } from '../../src/translate/own';
import { labelMatches } from '../../src/translate/filters';
import { familiarNames, parseReference, withTag } from '../../src/translate/reference';
import { queryFilters, tooDeep } from '../../src/http/query';
import { normaliseCreateBody } from '../../src/translate/request/create';

test('object keys from user input are own keys only', () => {
  expect(own({}, 'toString')).toBeUndefined();
  expect(own({ toString: 1 }, 'toString')).toBe(1);
  expect(own(null, 'constructor')).toBeUndefined();
  for (const k of ['toString', 'valueOf', 'hasOwnProperty', 'constructor', '__proto__']) {
    expect(labelMatches({ a: 'b' }, k)).toBe(false);
    expect(labelMatches({ a: 'b' }, `${k}=x`)).toBe(false);
  }
  expect(labelMatches(JSON.parse('{"__proto__":"x"}'), '__proto__=x')).toBe(true);
  expect(labelMatches({ valueOf: '' }, 'valueOf')).toBe(true);
});

test("tags: the engine's reference.WithTag rule; unparsable stored names are left out of lists", () => {
  for (const t of [':', '-x', 'x@y', 'a'.repeat(129), '']) expect(() => withTag(parseReference('fz'), t)).toThrow('invalid tag format');
  expect(withTag(parseReference('fz'), 'a'.repeat(128)).tag).toBe('a'.repeat(128));
  expect(familiarNames(['docker.io/library/busybox:latest', 'docker.io/library/fz:-x'])).toEqual(['busybox:latest']);
});

test('JSON nesting beyond 10000 levels is refused before parsing; brackets inside strings do not count', () => {
  expect(tooDeep('['.repeat(10000) + ']'.repeat(10000))).toBeUndefined();
  expect(tooDeep('['.repeat(10001))).toBe("invalid character '[' exceeded max depth");
  expect(tooDeep(`{"a":"${'{'.repeat(20000)}"}`)).toBeUndefined();
  expect(tooDeep(`{"a":"\\"${'{'.repeat(20000)}"}`)).toBeUndefined();
  expect(tooDeep('{"a":'.repeat(3) + '1}}}', 2)).toBe("invalid character '{' exceeded max depth");
});

test("create bodies: wrong JSON types answered with the engine's decoder messages (the fuzz suite's 500s)", () => {
  const msg = (body: unknown) => thrownMessage(() => normaliseCreateBody(body, '1.24'));
  expect(msg({ Image: 'b', HostConfig: { NetworkMode: { a: 1 } } })).toBe('json: cannot unmarshal object into Go struct field HostConfig.HostConfig.NetworkMode of type container.NetworkMode');
  expect(msg({ Image: 'b', Env: { a: 1 } })).toBe('json: cannot unmarshal object into Go struct field ContainerConfigWrapper.Env of type []string');
  expect(msg({ Image: 'b', HostConfig: { Memory: [1] } })).toBe('json: cannot unmarshal array into Go struct field HostConfig.HostConfig.Memory of type int64');
  expect(msg({ Image: 'b', Cmd: 'echo hi', StopSignal: 9, HostConfig: { CapAdd: 'NET_ADMIN', Dns: null } })).toBe('ok');
});

test('filters whose values hold objects are invalid filters, not a 500', () => {
  const req = { query: { filters: '{"label":[{"toString":2}]}' } } as unknown as Parameters<typeof queryFilters>[0];
  expect(() => queryFilters(req)).toThrow(`invalid filter '{"label":[{"toString":2}]}'`);
});
