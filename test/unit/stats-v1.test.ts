// The cgroup v1 stats answer's exact bytes per version, pinned (test/fixtures/stats-v1-answers.json: a reading in
// the shape the cgroup reader and containerd's Metrics give, with a previous one, and toStatsJSON's answers to it as
// they were before its shaping was made cheaper): field order, the memory stats without a total of the hierarchical
// limit, the host's memory as the limit, percpu, networks per version. The golden scenarios compare the same shape
// with the reference engine's.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { toStatsJSON, type StatsReading } from '../../src/translate/response/stats';

const fixture = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../fixtures/stats-v1-answers.json'), 'utf8')) as { cur: StatsReading; prev: StatsReading; out: Record<string, string> };
const who = { id: 'c'.repeat(64), name: '/web' };

test.each(['1.18', '1.19', '1.20', '1.21', '1.24'])('the v1 answer at %s is byte for byte the pinned one', (v) => {
  expect(JSON.stringify(toStatsJSON(fixture.cur, v === '1.18' ? undefined : fixture.prev, v, who))).toBe(fixture.out[v]);
});

test('with no previous reading (a stream\'s first) the precpu is zero and the preread the zero time', () => {
  expect(JSON.stringify(toStatsJSON(fixture.cur, undefined, '1.24', who))).toBe(fixture.out['1.24-noprev']);
});
