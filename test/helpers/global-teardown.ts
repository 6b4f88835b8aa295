import * as fs from 'node:fs';
import { STATE_FILE, PrivateContainerd } from './private-containerd';

export default async function globalTeardown(): Promise<void> {
  if (!fs.existsSync(STATE_FILE)) return;
  const ctd = JSON.parse(fs.readFileSync(STATE_FILE, 'utf8')) as PrivateContainerd;
  fs.unlinkSync(STATE_FILE);
  try {
    process.kill(ctd.pid, 'SIGTERM');
  } catch {
    return;
  }
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    try {
      process.kill(ctd.pid, 0);
    } catch {
      break;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  try {
    process.kill(ctd.pid, 'SIGKILL');
  } catch {
    /* gone */
  }
  fs.rmSync(ctd.dir, { recursive: true, force: true, maxRetries: 3 });
}
