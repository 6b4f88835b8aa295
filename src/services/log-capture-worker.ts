// The capture thread (see log-capture.ts and docs/logging.md): a CaptureHost fed by the main thread's messages.
import { parentPort } from 'node:worker_threads';
import { CaptureHost, type FromCapture, type ToCapture } from './log-capture';
import { nameThread } from '../runtime/thread-name';

const port = parentPort;
if (port) {
  nameThread('berth-capture');
  // reads coalesced (read-coalescing.ts): on its own thread a sleep holds up nothing but the other captures
  const host = new CaptureHost((m: FromCapture, transfer?: ArrayBuffer[]) => port.postMessage(m, transfer), {});
  port.on('message', (m: ToCapture) => host.handle(m));
}
