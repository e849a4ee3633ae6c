import type { LeafClient } from './leaf-client';
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
 * copy is, with `cancel: 'close'`, aborted with its AbortController (its HTTP/1.1 connection
 * closes, its CLIENT span ends with an error status, and the leaf stops waiting); with
 * 'discard', left to finish on its keep-alive connection and ignored (aborted only if it is
 * still running `loserTimeoutMs` later). Rejects only when every copy sent has failed.
 */
export function hedgedCall(client: LeafClient, o: HedgedCallOptions): Promise<HedgeOutcome> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const controllers: AbortController[] = [];
    let settled = false;
    let launched = 0;
    let failed = 0;
    let backupLaunched = false;
    let done = 0; // copies that answered or failed
    let loserTimer: NodeJS.Timeout | undefined;
    const onDeadline = () => {
      for (const c of controllers) c.abort(o.deadline.reason);
    };
    const finish = () => {
      settled = true;
      clearTimeout(timer);
      o.deadline.removeEventListener('abort', onDeadline);
    };
    const fail = (err: unknown) => {
      finish();
      reject(err instanceof Error ? err : new Error(String(err)));
    };
    const launch = (ep: LeafEndpoint, hedge: 'primary' | 'backup') => {
      const ctl = new AbortController();
      controllers.push(ctl);
      launched++;
      client.call(ep, o.query, { shard: o.shard, hedge, arm: o.arm }, ctl.signal).then(
        () => {
          done++;
          if (settled) {
            if (done === launched) clearTimeout(loserTimer);
            return;
          }
          finish();
          const lost = new Error('hedge lost');
          if (o.cancel === 'close') {
            for (const c of controllers) if (c !== ctl) c.abort(lost);
          } else if (done < launched) {
            loserTimer = setTimeout(() => {
              for (const c of controllers) if (c !== ctl) c.abort(lost);
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
            if (done === launched) clearTimeout(loserTimer);
            return;
          }
          failed++;
          if (!backupLaunched && !o.deadline.aborted) launchBackup(err);
          else if (failed === launched) fail(err);
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
      } else if (failed === launched) {
        fail(primaryError ?? new Error(`no backup replica for shard ${String(o.shard)}`));
      }
    };
    o.deadline.addEventListener('abort', onDeadline);
    const timer = setTimeout(launchBackup, o.delayMs);
    launch(o.primary, 'primary');
  });
}
