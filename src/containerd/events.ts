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

/** The topic of berth's own probe events (publishProbe): a subscription that receives one is in effect. */
export const PROBE_TOPIC = '/berth/probe';

/**
 * Subscribes to the namespace's `/tasks/*` events (and `/images/*` with `images`, berth's probes with `probe`);
 * cancel() ends the subscription.
 */
export function subscribeTaskEvents(ctr: Containerd, h: TaskEventHandler, opts: { images?: boolean; probe?: boolean } = {}): { cancel(): void } {
  const topics = `^/(${['tasks', ...(opts.images ? ['images'] : []), ...(opts.probe ? ['berth'] : [])].join('|')})/`;
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

/**
 * Publishes an event of berth's own (PROBE_TOPIC, an empty payload) in the namespace: containerd sends it to the
 * subscriptions registered by then. (containerd sends a Subscribe's response headers only with its first event, so
 * an open stream alone does not say that the subscription is in effect.)
 */
export function publishProbe(ctr: Containerd): Promise<void> {
  return new Promise((resolve, reject) => {
    ctr.raw.events.Publish({ topic: PROBE_TOPIC, event: { type_url: 'berth.probe', value: Buffer.alloc(0) } }, ctr.metadata(), { deadline: Date.now() + 5000 }, (err) => (err ? reject(err) : resolve()));
  });
}
