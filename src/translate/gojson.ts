// JSON as Go's encoding/json writes it: <, >, & and U+2028/U+2029 escaped as \uXXXX (the engine's streams, e.g.
// ` ---\u003e` in a build's output) — pure.
export function goJSON(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
