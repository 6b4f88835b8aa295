import { applyResult, initialHealth, probeOf } from '../../src/services/health';
import { healthSuffix } from '../../src/translate/response/containers';

const r = (code: number) => ({ Start: 's', End: 'e', ExitCode: code, Output: '' });

describe('healthcheck state machine', () => {
  test('probes from the Healthcheck forms, with the engine defaults', () => {
    expect(probeOf({ Test: ['CMD', 'true'] })).toEqual({ cmd: ['true'], intervalMs: 30000, timeoutMs: 30000, retries: 3, startPeriodMs: 0 });
    expect(probeOf({ Test: ['CMD-SHELL', 'curl -f x'], Interval: 1e9, Timeout: 2e9, Retries: 5 })).toEqual({ cmd: ['/bin/sh', '-c', 'curl -f x'], intervalMs: 1000, timeoutMs: 2000, retries: 5, startPeriodMs: 0 });
    expect(probeOf({ Test: ['NONE'] })).toBeUndefined();
    expect(probeOf({ Test: [] })).toBeUndefined();
    expect(probeOf(undefined)).toBeUndefined();
  });
  test('starting until a success; failures count only to Retries; a success resets', () => {
    let h = initialHealth();
    h = applyResult(h, r(1), 2, false);
    expect([h.Status, h.FailingStreak]).toEqual(['starting', 1]);
    h = applyResult(h, r(0), 2, false);
    expect([h.Status, h.FailingStreak]).toEqual(['healthy', 0]);
    h = applyResult(h, r(1), 2, false);
    expect([h.Status, h.FailingStreak]).toEqual(['healthy', 1]);
    h = applyResult(h, r(-1), 2, false);
    expect([h.Status, h.FailingStreak]).toEqual(['unhealthy', 2]);
    for (let i = 0; i < 10; i++) h = applyResult(h, r(1), 2, false);
    expect(h.Log).toHaveLength(5);
  });
  test('failures inside the start period do not count', () => {
    const h = applyResult(initialHealth(), r(1), 1, true);
    expect([h.Status, h.FailingStreak, h.Log.length]).toEqual(['starting', 0, 1]);
  });
  test('list suffixes', () => {
    expect(healthSuffix(undefined)).toBe('');
    expect(healthSuffix(initialHealth())).toBe(' (health: starting)');
    expect(healthSuffix({ Status: 'unhealthy', FailingStreak: 3, Log: [] })).toBe(' (unhealthy)');
  });
});
