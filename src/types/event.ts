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
}
