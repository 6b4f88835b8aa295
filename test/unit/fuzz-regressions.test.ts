// Pure pieces of the fuzz fixes (issue 19): own-key lookups, label filters, tag checks, JSON depth.
import { own } from '../../src/translate/own';
import { labelMatches } from '../../src/translate/filters';
import { familiarNames, parseReference, withTag } from '../../src/translate/reference';
import { tooDeep } from '../../src/http/query';

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
