// One containerd event subscription for berth's namespace, turned into callbacks for what only the runtime knows
// (OOM kills, and task exits as a second source next to Tasks.Wait). Reconnects with backoff when containerd
// restarts or the stream breaks.
import type { Containerd } from '../containerd/client';
import { subscribeTaskEvents } from '../containerd/events';
import type { Logger } from '../log';
import { fromProtoTime } from '../translate/time';

export interface RuntimeEvents {
  onOOM(containerId: string): void;
  /** The init process of a task exited (exec exits are not reported). */
  onExit?(containerId: string, pid: number, status: number, exitedAt: { seconds: number; nanos: number }): void;
}

export class EventBridge {
  private stopped = false;
  private call?: { cancel(): void };
  private backoff = 100;

  constructor(private readonly ctr: Containerd, private readonly handlers: RuntimeEvents, private readonly logger: Logger) {}

  start(): void {
    if (this.stopped) return;
    const again = () => {
      if (this.stopped) return;
      this.call = undefined;
      setTimeout(() => this.start(), this.backoff).unref();
      this.backoff = Math.min(this.backoff * 2, 5000);
    };
    this.call = subscribeTaskEvents(this.ctr, {
      event: (topic, payload) => {
        this.backoff = 100;
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
      closed: again,
    });
  }

  close(): void {
    this.stopped = true;
    this.call?.cancel();
  }
}
