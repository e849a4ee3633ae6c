import type { Store } from '../engine/client';
import { sharedReadsOf } from '../engine/shared-reads';

/**
 * Who wants to know that rows went into a store: the kept store figures of /api/v1/stats
 * (cache/store-figures.ts) refresh after ingest commits instead of asking the engine on every
 * request. Told after an insert through insertNative returned (ingest and its log replay);
 * rows written another way (a Collector beside a read-only server, tests inserting directly)
 * are seen by the figures' age-based refresh instead.
 */
const listeners = new WeakMap<Store, Set<() => void>>();

/** Calls `f` after each insert into `store`; returns the unsubscribe. */
export function onStoreWrite(store: Store, f: () => void): () => void {
  let set = listeners.get(store);
  if (!set) listeners.set(store, (set = new Set()));
  set.add(f);
  return () => set.delete(f);
}

/** Tells the listeners of `store` that an insert into it returned. */
export function noteStoreWrite(store: Store): void {
  // Reads asked from now on must see the rows: none joins a read asked before them.
  sharedReadsOf(store)?.written();
  for (const f of listeners.get(store) ?? []) f();
}
