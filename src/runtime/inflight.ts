// Work in progress that a shutdown waits for (an exit being recorded, a record being written, a request's handler):
// promises are added as they start and forgotten once settled.
export class InFlight {
  private readonly pending = new Set<Promise<void>>();

  get size(): number {
    return this.pending.size;
  }

  /** Tracks `p` until it settles; returns `p` itself. */
  add<T>(p: Promise<T>): Promise<T> {
    const settled: Promise<void> = p.then(
      () => undefined,
      () => undefined,
    );
    this.pending.add(settled);
    void settled.then(() => this.pending.delete(settled));
    return p;
  }

  /** Resolves once all tracked work settled (also work added meanwhile), or at `timeoutMs`: whether all settled. */
  async drain(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.pending.size) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all([...this.pending]), new Promise((r) => (timer = setTimeout(r, left)))]);
      clearTimeout(timer);
    }
    return true;
  }
}
