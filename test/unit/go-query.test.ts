import { goQuery } from '../../src/translate/request/query';
import { parsesForm } from '../../src/http/form';

describe('goQuery: the query as Go url.ParseQuery reads it', () => {
  test.each([
    ['all=1&size=0', 'all=1&size=0', undefined],
    ['a=%41&b=%7e', 'a=%41&b=%7e', undefined],
    ['all=%ZZ', '', 'invalid URL escape "%ZZ"'],
    ['a=%2', '', 'invalid URL escape "%2"'],
    ['a=%', '', 'invalid URL escape "%"'],
    ['a=%22%', '', 'invalid URL escape "%"'],
    ['%ZZ=1&all=1', 'all=1', 'invalid URL escape "%ZZ"'],
    ['all=%ZZ&b=%YY&c=1', 'c=1', 'invalid URL escape "%ZZ"'],
    // a ';' error replaces an earlier one (Go assigns it; escape errors only fill an empty one)
    ['%ZZ=1&all=1;x=2', '', 'invalid semicolon separator in query'],
    ['all=1;x=2&%ZZ=1', '', 'invalid semicolon separator in query'],
    ['a=1&&b=2', 'a=1&&b=2', undefined],
    ['a=1&&b=%ZZ', 'a=1', 'invalid URL escape "%ZZ"'],
  ])('%s', (raw, kept, error) => {
    expect(goQuery(raw)).toEqual(error ? { kept, error } : { kept });
  });
});

describe('parsesForm: the engine handlers that start with ParseForm', () => {
  test.each([
    ['GET', '/containers/json', true],
    ['GET', '/containers/abc/json', false],
    ['GET', '/containers/abc/logs', true],
    ['GET', '/containers/abc/stats', true],
    ['POST', '/containers/abc/start', true],
    ['GET', '/containers/abc/archive', false],
    ['DELETE', '/containers/abc', true],
    ['GET', '/images/json', true],
    ['GET', '/images/library/busybox/json', false],
    ['GET', '/images/library/busybox/get', true],
    ['DELETE', '/images/library/busybox', true],
    ['GET', '/_ping', false],
    ['GET', '/version', false],
    ['GET', '/info', false],
    ['GET', '/volumes', true],
    ['GET', '/networks/', true],
    ['GET', '/events', true],
    ['POST', '/build', false],
  ] as const)('%s %s', (method, path, expected) => {
    expect(parsesForm(method, path)).toBe(expected);
  });
});
