// The capture thread (see log-capture.ts and docs/logging.md): a CaptureHost fed by the main thread's messages.
import { parentPort } from 'node:worker_threads';
import { CaptureHost, type FromCapture, type ToCapture } from './log-capture';
import { nameThread } from '../runtime/thread-name';

const port = parentPort;
if (port) {
  nameThread('berth-capture');
  const env = (k: string) => (process.env[k] ? Number(process.env[k]) : undefined);
  const off = process.env.BERTH_COALESCE === '0';
  const host = new CaptureHost(
    (m: FromCapture, transfer?: ArrayBuffer[]) => port.postMessage(m, transfer),
    off ? undefined : { target: env('BERTH_COALESCE_TARGET'), maxSleepMs: env('BERTH_COALESCE_MAX_MS'), sustainedMs: env('BERTH_COALESCE_SUSTAINED_MS') },
  );
  port.on('message', (m: ToCapture) => host.handle(m));
}
