/**
 * Identical reads in flight share one engine turn. A dashboard page asks several answers over
 * one range at once, and each answer starts with the same small reads of that range (its stored
 * bounds, its data version, its sampling, which chunks and buckets are stored): measured on the
 * `microservices` preset under ingest, those reads were half of the engine's time while the
 * Overview loaded, every one of them queued behind the others on the embedded engine's one
 * session. A read asked while the same read (same SQL, parameters and class of turn) is still
 * waiting or running joins it instead of taking a turn of its own.
 *
 * Joining is the same as having asked a moment earlier, so it may only happen while no write
 * came between: a noted write (store/writes/notes.ts) forgets every read in flight, and later
 * reads take turns of their own and see the new rows. A read whose first asker stopped it (its
 * client left, its deadline came) is asked again by each joiner still waiting, under the joiner's
 * own request. Each joiner gets its own copy of the rows, so no answer can change another's.
 */
export class SharedReads {
  private readonly inflight = new Map<string, { rows: Promise<unknown[]>; joiners: number }>();
  /** Reads that joined one in flight (tests, and what the measurement says). */
  joined = 0;

  /** Rows went into the store: reads asked from now on must see them. */
  written(): void {
    this.inflight.clear();
  }

  /**
   * The rows of the read `key`: joins the same read in flight, else runs `read` (and lets later
   * askers join it until it ends or a write is noted). `stopped` tells whether the joiner's own
   * request has ended (then the shared read's failure is its own).
   */
  async read<T>(key: string, read: () => Promise<T[]>, stopped: () => boolean): Promise<T[]> {
    const running = this.inflight.get(key);
    if (running === undefined) return this.lead(key, read);
    running.joiners++;
    this.joined++;
    try {
      return structuredClone((await running.rows) as T[]);
    } catch (err) {
      // The first asker's request ended (or the read failed for it): ask for this one.
      if (stopped()) throw err;
      return read();
    }
  }

  private async lead<T>(key: string, read: () => Promise<T[]>): Promise<T[]> {
    const entry = { rows: read() as Promise<unknown[]>, joiners: 0 };
    this.inflight.set(key, entry);
    try {
      const rows = (await entry.rows) as T[];
      // Joiners copy the rows when they resume, after this; the first asker may change its own.
      return entry.joiners > 0 ? structuredClone(rows) : rows;
    } finally {
      if (this.inflight.get(key) === entry) this.inflight.delete(key);
    }
  }
}

const shared = new WeakMap<object, SharedReads>();

/** Makes `reads` the shared reads of `store` (openStore does, once). */
export function registerSharedReads(store: object, reads: SharedReads): void {
  shared.set(store, reads);
}

/** The shared reads of `store`, if it has them (a store made by openStore does). */
export function sharedReadsOf(store: object): SharedReads | undefined {
  return shared.get(store);
}

/** A read's parameters as part of its key (values are strings, numbers, bigints, arrays). */
export function paramsKey(params: Readonly<Record<string, unknown>>): string {
  return JSON.stringify(params, (_k, v: unknown) =>
    typeof v === 'bigint' ? `${v.toString()}n` : v,
  );
}
