// The swarm tests' harness (test/helpers/swarm-cluster.ts) itself: when one node of a set fails to start, the ones
// that did start are closed before the error reaches the test (before, their berthd processes were left running
// with their bridges and folders, and afterAll knew none of them).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { startSwarmNodes } from '../helpers/swarm-cluster';

jest.setTimeout(60_000);

const PORT = 23960;
/** berthd processes of this test process (their containerd namespace names its pid). */
const ours = (): string[] =>
  execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l.includes('berthd') && l.includes(`--namespace berth-swarm-${process.pid}-`));
const folders = (): string[] => fs.readdirSync(os.tmpdir()).filter((f) => /^berth-swarm9[12]-/.test(f));

test('one node fails to start: the others are closed, nothing of theirs is left', async () => {
  const before = folders();
  // node 92's berthd refuses an unknown flag and exits; 91 starts fine
  await expect(startSwarmNodes([91, { n: 92, flags: ['--no-such-flag'] }], PORT)).rejects.toThrow(/berthd 92 exited/);
  expect(ours()).toEqual([]);
  expect(folders().filter((f) => !before.includes(f))).toEqual([]);
});
