// The events facade: containerd's task events for berth's namespace, each with its topic and its payload unpacked
// from the protobuf Any on demand. The subscriber resubscribes when the stream closes (containerd restarted).
import type { Containerd } from './client';

export interface TaskEventHandler {
  /** One event: `/tasks/exit`, `/tasks/oom`, ...; `payload()` unpacks it (throws when it cannot be decoded). */
  event(topic: string, payload: <T>() => T | undefined): void;
  /** The stream ended or failed. */
  closed(): void;
}

/** Subscribes to the namespace's `/tasks/*` events; cancel() ends the subscription. */
export function subscribeTaskEvents(ctr: Containerd, h: TaskEventHandler): { cancel(): void } {
  const stream = ctr.raw.events.Subscribe({ filters: [`namespace==${ctr.namespace},topic~="^/tasks/"`] }, ctr.metadata());
  stream.on('data', (env: { topic: string; event: { type_url: string; value: Buffer } }) => h.event(env.topic, <T>() => ctr.any.unpack<T>(env.event)));
  stream.on('error', () => h.closed());
  stream.on('end', () => h.closed());
  return stream;
}
