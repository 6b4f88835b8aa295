// One containerd event subscription for berth's namespace, turned into callbacks for what only the runtime knows
// (OOM kills, task exits, and when a new subscription is in effect: the exits it could not carry are then looked
// for in containerd's task list), and into the image records' change count that
// ImageService's cache of the image list goes by (containerd/images.ts generation: any /images/ event, and the
// stream's gaps). Reconnects with backoff when containerd restarts or the stream breaks.
import type { Containerd } from '../containerd/client';
import { backoffMs } from '../containerd/backoff';
import { PROBE_TOPIC, publishProbe, subscribeTaskEvents } from '../containerd/events';
import * as imageApi from '../containerd/images';
import type { Logger } from '../log';
import { fromProtoTime } from '../translate/time';

export interface RuntimeEvents {
  onOOM(containerId: string): void;
  /** The init process of a task exited (exec exits are not reported). */
  onExit?(containerId: string, pid: number, status: number, exitedAt: { seconds: number; nanos: number }): void;
  /**
   * A new subscription is in effect (containerd delivered an event through it: berth's probe, published until one
   * arrives): every event from here on reaches the handlers; `current()` is false once it closed.
   */
  onInEffect?(current: () => boolean): void;
}

/** The probe's republishing while none arrived (a Publish handled before containerd registered the subscription is
 * not sent to it): from 100 ms, doubling, at most 2 s apart. */
const PROBE_FIRST_MS = 100;
const PROBE_MAX_MS = 2000;

export class EventBridge {
  private stopped = false;
  private call?: { cancel(): void };
  /** The current subscription's token: closes of earlier ones are ignored. */
  private current?: object;
  private timer?: NodeJS.Timeout;
  private probeTimer?: NodeJS.Timeout;
  /** Subscriptions in a row that closed before containerd accepted one. */
  private failures = 0;

  constructor(private readonly ctr: Containerd, private readonly handlers: RuntimeEvents, private readonly logger: Logger) {}

  start(): void {
    if (this.stopped || this.current) return;
    this.timer = undefined;
    let accepted = false;
    let inEffect = false;
    const token = {};
    this.current = token;
    const isCurrent = () => this.current === token;
    const effective = () => {
      if (inEffect || !isCurrent()) return;
      inEffect = true;
      this.handlers.onInEffect?.(isCurrent);
    };
    const call = subscribeTaskEvents(this.ctr, {
      // (containerd sends the stream's headers with its first event)
      opened: () => {
        accepted = true;
        this.failures = 0;
        if (this.current === token) imageApi.setWatched(this.ctr, true);
      },
      event: (topic, payload) => {
        // (any event proves the subscription was registered before it was published; the probe makes sure one comes)
        effective();
        if (topic === PROBE_TOPIC) return;
        if (topic.startsWith('/images/')) return imageApi.noteChange(this.ctr);
        try {
          if (topic === '/tasks/oom') {
            const ev = payload<{ container_id: string }>();
            if (ev?.container_id) this.handlers.onOOM(ev.container_id);
          } else if (topic === '/tasks/exit' && this.handlers.onExit) {
            const ev = payload<{ container_id: string; id: string; pid: number; exit_status: number; exited_at: unknown }>();
            if (ev && ev.container_id && ev.id === ev.container_id) this.handlers.onExit(ev.container_id, ev.pid, ev.exit_status, fromProtoTime(ev.exited_at as never));
          }
        } catch (err) {
          this.logger.warn('cannot decode containerd event', { topic, err: String(err) });
        }
      },
      // one subscription at a time: the next one after a wait that grows while containerd stays away
      closed: () => {
        if (this.current !== token) return;
        imageApi.setWatched(this.ctr, false);
        this.current = undefined;
        this.call = undefined;
        if (this.stopped) return;
        if (!accepted) this.failures++;
        if (this.failures === 1) this.logger.warn('containerd event stream closed; subscribing again with a back-off');
        const delayMs = backoffMs(this.failures, 200, 5000);
        this.logger.debug('subscribing to containerd events again', { failures: this.failures, delayMs });
        this.timer = setTimeout(() => this.start(), delayMs);
        this.timer.unref();
      },
    }, { images: true, probe: !!this.handlers.onInEffect });
    if (this.current === token) this.call = call;
    if (this.handlers.onInEffect) void this.probe(() => !inEffect && isCurrent());
  }

  /** Publishes probes while `waiting()`: at once, then after growing pauses (a failed Publish waits the same). */
  private async probe(waiting: () => boolean): Promise<void> {
    for (let pause = PROBE_FIRST_MS; waiting() && !this.stopped; pause = Math.min(pause * 2, PROBE_MAX_MS)) {
      await publishProbe(this.ctr).catch(() => undefined);
      if (!waiting()) return;
      await new Promise<void>((r) => {
        this.probeTimer = setTimeout(r, pause);
        this.probeTimer.unref();
      });
    }
  }

  /** containerd is reachable again: a subscription waiting out its back-off is made now (an OOM kill right after
   * containerd's return is known only from this stream). */
  kick(): void {
    if (this.stopped || this.current || !this.timer) return;
    clearTimeout(this.timer);
    this.start();
  }

  close(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    clearTimeout(this.probeTimer);
    const call = this.call;
    this.call = undefined;
    this.current = undefined;
    imageApi.setWatched(this.ctr, false);
    call?.cancel();
  }
}
