// Answers by key, so moving between pages with the same range does not ask again, and one
// request in flight per key however many components want it (the filter bar and the page ask
// for the same operations list). Bounded: the oldest answer goes first. Keys carry the store
// generation, so "Refresh" misses the cache.
const CACHE_MAX = 60;

export function toError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}

interface Load {
  promise: Promise<unknown>;
  controller: AbortController;
  /** Callers waiting on it; the load is aborted when the last one leaves before it ends. */
  users: number;
}

export class SharedLoads {
  private readonly cache = new Map<string, unknown>();
  private readonly inflight = new Map<string, Load>();

  constructor(private readonly max = CACHE_MAX) {}

  has(key: string): boolean {
    return this.cache.has(key);
  }

  get(key: string): unknown {
    return this.cache.get(key);
  }

  /**
   * Starts (or joins) the load of `key`; the returned `leave` says this caller no longer waits.
   * A shared load goes on while anyone waits on it and is aborted when nobody does (the page
   * was left, or the key changed), so a dropped request stops costing the server.
   */
  start<T>(
    key: string,
    load: (signal: AbortSignal) => Promise<T>,
  ): { promise: Promise<T>; leave: () => void } {
    let entry = this.inflight.get(key);
    if (!entry) {
      const controller = new AbortController();
      const created: Load = {
        controller,
        users: 0,
        promise: load(controller.signal).then(
          (data) => {
            this.remember(key, data);
            if (this.inflight.get(key) === created) this.inflight.delete(key);
            return data;
          },
          (e: unknown) => {
            if (this.inflight.get(key) === created) this.inflight.delete(key);
            throw toError(e);
          },
        ),
      };
      entry = created;
      this.inflight.set(key, created);
    }
    const joined = entry;
    joined.users++;
    let left = false;
    return {
      promise: joined.promise as Promise<T>,
      leave: () => {
        if (left) return;
        left = true;
        joined.users--;
        if (joined.users === 0 && this.inflight.get(key) === joined) {
          this.inflight.delete(key);
          joined.controller.abort();
        }
      },
    };
  }

  private remember(key: string, value: unknown): void {
    this.cache.delete(key);
    this.cache.set(key, value);
    while (this.cache.size > this.max) {
      const first = this.cache.keys().next();
      if (first.done === true) break;
      this.cache.delete(first.value);
    }
  }
}
