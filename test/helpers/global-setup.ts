// Jest globalSetup for the integration project: use $BERTH_TEST_CONTAINERD if it answers, else start a private
// containerd. The address reaches the test workers through the environment.
import * as fs from 'node:fs';
import { socketAlive } from '../../src/containerd/supervisor';
import { reapOrphans, startPrivateContainerd, STATE_FILE } from './private-containerd';
import { reapTestBerths } from './test-berths';

export default async function globalSetup(): Promise<void> {
  const given = process.env.BERTH_TEST_CONTAINERD;
  if (given && (await socketAlive(given))) return;
  // A killed run's berthds (their network namespaces, bridges and rules), containerd and containers would otherwise
  // stay for ever.
  for (const dir of [...(await reapTestBerths()), ...(await reapOrphans())]) process.stderr.write(`reaped what a killed test run left: ${dir}\n`);
  const ctd = await startPrivateContainerd();
  process.env.BERTH_TEST_CONTAINERD = ctd.address;
  fs.writeFileSync(STATE_FILE, JSON.stringify(ctd));
}
