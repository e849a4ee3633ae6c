/**
 * Answers asked for before the page asks them itself (a span the trace page selects by default,
 * the What-if page's whole-request answer): a few at most, each handed once to the page's own ask
 * of the same key, which then owns its failure.
 */
export class AskedEarly<T> {
  private readonly asked = new Map<string, Promise<T>>();

  constructor(private readonly max = 4) {}

  /** Starts `ask` unless the same key is already asked; the oldest beyond `max` are dropped. */
  ask(key: string, ask: () => Promise<T>): void {
    if (this.asked.has(key)) return;
    const p = ask();
    p.catch(() => undefined);
    this.asked.set(key, p);
    while (this.asked.size > this.max) {
      const first = this.asked.keys().next();
      if (first.done === true) break;
      this.asked.delete(first.value);
    }
  }

  /** The early answer for `key`, once: the next ask of the key goes to the server. */
  take(key: string): Promise<T> | undefined {
    const early = this.asked.get(key);
    if (early) this.asked.delete(key);
    return early;
  }
}
