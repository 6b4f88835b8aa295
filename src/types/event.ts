// The engine's event, version-agnostic. Legacy members (status/id/from) are added per version when written.

// The engine's event, version-agnostic. Legacy members (status/id/from) are added per version when written.
export type EventType = 'container' | 'image' | 'volume' | 'network' | 'daemon' | 'plugin';

export interface EngineEvent {
  Type: EventType;
  Action: string;
  Actor: { ID: string; Attributes: Record<string, string> };
  time: number; // seconds
  timeNano: number; // nanoseconds (a JS number: loses sub-µs precision, as JSON readers do anyway)
}

/** What services depend on to report events. */
export interface EventPublisher {
  publish(type: EventType, action: string, id: string, attributes?: Record<string, string>, at?: { seconds: number; nanos: number }): void;
  /**
   * What the running request has published so far goes to subscribers now, not at its answer: the request goes on
   * to wait (a kill's or a stop's wait for the exit), and the engine sends its events as they happen, the kill and
   * the die before the answer. What the request publishes afterwards is held again (src/http/answer.ts).
   */
  sendHeld?(): void;
}

/**
 * What holds an event back: the answer of the request during which it was published, until that answer has been
 * written (src/http/answer.ts). Subscribers get the event after it; events published later wait behind it.
 */
export interface EventHold {
  /** The answer is out (or the client left): events it held go to subscribers. Never goes back to false. */
  readonly released: boolean;
  /** Called once, when released (at once if it already is). */
  onRelease(fn: () => void): void;
  /** An event was just queued behind it (a hold may lapse a while after the last one: src/http/answer.ts). */
  queued?(): void;
  /** What is queued behind it goes out now; what is published later is held again (EventPublisher.sendHeld). */
  sendNow?(): void;
}
