// The stats reader thread: reads the cgroup v1 files of the tasks a batch of stats requests wants (runtime/
// stats-files) off the main thread, so that `docker stats` of 1,000 containers (15 files each for a one-shot: two
// readings) and the HTTP work of its 1,000 connections run on two cores. Messages from the main thread: a batch
// (seq, items) or forget (a container is not running: its cgroup folders are dropped). To it: the batch's readings.
import { parentPort } from 'node:worker_threads';
import { CgroupV1Reader } from '../runtime/cgroup-metrics';
import { readBatch, type ReadItem, type ReadBatch } from '../runtime/stats-files';
import { nameThread } from '../runtime/thread-name';

export type ToStatsReader = { type: 'batch'; seq: number; items: ReadItem[] } | { type: 'forget'; id: string };
export type FromStatsReader = { seq: number; batch?: ReadBatch; error?: string };

const port = parentPort;
if (port) {
  nameThread('berth-stats');
  const reader = new CgroupV1Reader();
  port.on('message', (m: ToStatsReader) => {
    if (m.type === 'forget') return reader.forget(m.id);
    try {
      port.postMessage({ seq: m.seq, batch: readBatch(reader, m.items) } satisfies FromStatsReader);
    } catch (err) {
      port.postMessage({ seq: m.seq, error: String(err) } satisfies FromStatsReader);
    }
  });
}
