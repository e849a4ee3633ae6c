import type { LeafCall, LeafClient } from './leaf-client';
import type { Arm, HedgeCancel, LeafEndpoint } from './messages';

export interface HedgeOutcome {
  latencyMs: number;
  backupSent: boolean;
  backupWon: boolean;
}

export interface HedgedCallOptions {
  primary: LeafEndpoint;
  /** Picks the backup replica when the delay expires (undefined: none available). */
  backup: () => LeafEndpoint | undefined;
  shard: number;
  query: number;
  delayMs: number;
  /** The fan-out's deadline: aborting it cancels both copies. */
  deadline: AbortSignal;
  /** The loser: 'close' aborts it (its connection closes), 'discard' lets it finish unread. */
  cancel: HedgeCancel;
  /** With 'discard': a loser still running this long after the answer is aborted (ms). */
  loserTimeoutMs: number;
  onBackupSent: () => void;
  /** Marks both copies with the fan-out's group in a split run. */
  arm?: Arm | undefined;
}

/**
 * A hedged request (Dean and Barroso): send to the primary; if it has not answered after the
 * delay (or failed before), send a backup to another replica; take the first answer. The other
 * copy is, with `cancel: 'close'`, cancelled: its request is destroyed (its HTTP/1.1 connection
 * closes, its CLIENT span ends with an error status, and the leaf stops waiting); with
 * 'discard', left to finish on its keep-alive connection and ignored (aborted only if it is
 * still running `loserTimeoutMs` later). Rejects only when every copy sent has failed.
 */
export function hedgedCall(client: LeafClient, o: HedgedCallOptions): Promise<HedgeOutcome> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    // Each copy carries the fan-out's deadline as its own signal; a loser is cancelled alone.
    const copies: LeafCall[] = [];
    let settled = false;
    let failed = 0;
    let backupLaunched = false;
    let done = 0; // copies that answered or failed
    let loserTimer: NodeJS.Timeout | undefined;
    const finish = () => {
      settled = true;
      clearTimeout(timer);
    };
    const fail = (err: unknown) => {
      finish();
      reject(err instanceof Error ? err : new Error(String(err)));
    };
    const launch = (ep: LeafEndpoint, hedge: 'primary' | 'backup') => {
      const copy = client.start(ep, o.query, { shard: o.shard, hedge, arm: o.arm }, o.deadline);
      copies.push(copy);
      copy.answer.then(
        () => {
          done++;
          if (settled) {
            if (done === copies.length) clearTimeout(loserTimer);
            return;
          }
          finish();
          const lost = new Error('hedge lost');
          if (o.cancel === 'close') {
            for (const c of copies) if (c !== copy) c.cancel(lost);
          } else if (done < copies.length) {
            loserTimer = setTimeout(() => {
              for (const c of copies) if (c !== copy) c.cancel(lost);
            }, o.loserTimeoutMs);
          }
          resolve({
            latencyMs: performance.now() - start,
            backupSent: backupLaunched,
            backupWon: hedge === 'backup',
          });
        },
        (err: unknown) => {
          done++;
          if (settled) {
            if (done === copies.length) clearTimeout(loserTimer);
            return;
          }
          failed++;
          if (!backupLaunched && !o.deadline.aborted) launchBackup(err);
          else if (failed === copies.length) fail(err);
        },
      );
    };
    const launchBackup = (primaryError?: unknown) => {
      if (backupLaunched || settled) return;
      backupLaunched = true;
      clearTimeout(timer);
      const ep = o.backup();
      if (ep) {
        o.onBackupSent();
        launch(ep, 'backup');
      } else if (failed === copies.length) {
        fail(primaryError ?? new Error(`no backup replica for shard ${String(o.shard)}`));
      }
    };
    const timer = setTimeout(launchBackup, o.delayMs);
    launch(o.primary, 'primary');
  });
}
