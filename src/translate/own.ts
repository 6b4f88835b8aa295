// Lookups in objects keyed by user input (names, aliases, labels) read own keys only: a network or label called
// `toString` or `constructor` must not find Object.prototype's function — pure.

/** o[k] when k is o's own key, else undefined. */
export function own<T>(o: Record<string, T> | null | undefined, k: string): T | undefined {
  return o != null && Object.hasOwn(o, k) ? o[k] : undefined;
}
