// An instant with nanoseconds — types only.

export interface Timestamp {
  seconds: number;
  nanos: number;
}
