// The events facade: containerd's task events for berth's namespace, each with its topic and its payload unpacked
// from the protobuf Any on demand. The subscriber resubscribes when the stream closes (containerd restarted).
import type { Containerd } from './client';

export interface TaskEventHandler {
  /** One event: `/tasks/exit`, `/tasks/oom`, ...; `payload()` unpacks it (throws when it cannot be decoded). */
  event(topic: string, payload: <T>() => T | undefined): void;
  /** containerd accepted the subscription (its response headers arrived). */
  opened?(): void;
  /** The stream ended or failed: called once per subscription. */
  closed(): void;
}

/** Subscribes to the namespace's `/tasks/*` events (and `/images/*` with `images`); cancel() ends the subscription. */
export function subscribeTaskEvents(ctr: Containerd, h: TaskEventHandler, opts: { images?: boolean } = {}): { cancel(): void } {
  const topics = opts.images ? '^/(tasks|images)/' : '^/tasks/';
  const stream = ctr.raw.events.Subscribe({ filters: [`namespace==${ctr.namespace},topic~="${topics}"`] }, ctr.metadata());
  // grpc-js ends a failed stream with both 'end' and 'error': each subscription reports its close once (twice
  // made every failed subscription two new ones, doubling while containerd was away)
  let done = false;
  const close = () => {
    if (done) return;
    done = true;
    h.closed();
  };
  stream.on('metadata', () => h.opened?.());
  stream.on('data', (env: { topic: string; event: { type_url: string; value: Buffer } }) => h.event(env.topic, <T>() => ctr.any.unpack<T>(env.event)));
  stream.on('error', close);
  stream.on('end', close);
  return stream;
}
