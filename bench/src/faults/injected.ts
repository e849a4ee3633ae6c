/** A fault in place (inject.ts, inject-net.ts): its undo is safe to call twice. */
export interface Injected {
  detail: string;
  undo: () => Promise<void>;
  /** What the fault measurably did (a queue's mean backlog, packets dropped), after the undo. */
  measured?: () => string;
}
