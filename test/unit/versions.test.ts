import { compareVersions, supports, FEATURES, Feature } from '../../src/translate/version/features';

describe('version rules', () => {
  test('numeric comparison, not lexical', () => {
    expect(compareVersions('1.9', '1.18')).toBe(-1);
    expect(compareVersions('1.24', '1.24')).toBe(0);
    expect(compareVersions('1.24', '1.100')).toBe(-1);
    expect(compareVersions('2.0', '1.99')).toBe(1);
    // the allocation-free path and the general one agree
    expect(compareVersions('1.24', '1.24.0')).toBe(0);
    expect(compareVersions('1.09', '1.9')).toBe(0);
    expect(compareVersions('1.2.3.4', '1.2.3')).toBe(1);
    expect(compareVersions('1.1000', '1.999')).toBe(1);
    expect(compareVersions('1', '1.0')).toBe(0);
  });

  test('since markers include their version and exclude earlier ones', () => {
    expect(supports('1.24', 'JsonErrors')).toBe(true);
    expect(supports('1.23', 'JsonErrors')).toBe(false);
    expect(supports('1.22', 'ListImageID')).toBe(true);
    expect(supports('1.21', 'ListImageID')).toBe(false);
  });

  test('until markers include their version and exclude later ones', () => {
    expect(supports('1.20', 'InspectExecDriver')).toBe(true);
    expect(supports('1.21', 'InspectExecDriver')).toBe(false);
    expect(supports('1.19', 'InspectVolumesRW')).toBe(true);
    expect(supports('1.20', 'InspectVolumesRW')).toBe(false);
  });

  test('every feature is decided for every served version', () => {
    for (const f of Object.keys(FEATURES) as Feature[])
      for (const v of ['1.18', '1.19', '1.20', '1.21', '1.22', '1.23', '1.24']) expect(typeof supports(v, f)).toBe('boolean');
  });
});
