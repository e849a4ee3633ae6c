import { statfs } from 'node:fs/promises';
import { join } from 'node:path';
import type { Store } from '../store';
import { insertNative } from '../store/writes/insert';
import { recordBatch } from '../store/writes/batches';
import type { BatchLog } from './batch-log';
import { isPermanent, type DeadLetters } from './dead-letter';
import { NO_OBSERVER, type IngestObserver } from './observer';
import type { WriteAheadLog } from './wal';
import type { WriterFailure, WriterFaults } from './writer-faults';

/** One acknowledged request waiting for the store: its log seq and its Native blocks. */
export interface QueuedRequest {
  seq: number;
  /** Items it holds (spans, or metric data points): what the queue bound counts. */
  spans: number;
  /** One Native block per target table (`BatchStoreDeps.tables`, same order); [] for none. */
  blocks: Buffer[][];
  arrivedMs: number;
  /** Called once the blocks are in the store (their buffers are reused). */
  release: () => void;
  /** Spans it counts for in the replay backlog (replayed requests only). */
  replaySpans?: number;
}

/** A table a signal's batches go into, with the columns its Native blocks carry. */
export interface TargetTable {
  table: string;
  columns: readonly string[];
}

/** What inserting a batch needs from the writer. */
export interface BatchStoreDeps {
  store: Store;
  /**
   * Where each of a request's blocks goes, in insert order. Once one table's insert is in, a
   * later table's permanent refusal is noted, not split (a split would insert the rows already
   * in again under other tokens).
   */
  tables: readonly TargetTable[];
  batchLog: BatchLog;
  wal: WriteAheadLog;
  deadLetters: DeadLetters;
  scratchDir: string;
  maxPartitionsPerInsert: number;
  log: (message: string) => void;
  observer?: IngestObserver;
  /** Told the items of each stored batch (default: the observer's `stored`, spans). */
  onStored?: (items: number) => void;
  faults: WriterFaults;
  /** Runs a disk or store operation until it succeeds, with the writer's backoff. */
  retry: <T>(what: string, op: () => Promise<T>) => Promise<T>;
  closing: () => boolean;
  /** A batch whose `B` was written could not be finished (closing): it must be repeated as is. */
  abandoned: (range: { first: number; last: number }) => void;
}

const blockBytes = (parts: readonly Buffer[]) => parts.reduce((n, b) => n + b.length, 0);

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Inserting one batch of the writer's queue exactly once: the batch log's `B`, the store's
 * record of it, the inserts under its deduplication token, then `C`. What the engine refuses
 * for good is split per request, then quarantined; anything else (the engine's state, a full
 * disk) is retried.
 */
export class BatchStore {
  insertedSpans = 0;

  constructor(private readonly d: BatchStoreDeps) {}

  /**
   * Inserts one batch (log records [first, last]) exactly once: `B` in the batch log and in the
   * store, the insert with its deduplication token, then `C`. Splits or quarantines what the
   * engine refuses for good; retries what it cannot take now.
   */
  async store(batch: QueuedRequest[]): Promise<void> {
    const first = batch[0]?.seq ?? 0;
    const last = batch[batch.length - 1]?.seq ?? 0;
    const { store, batchLog, tables } = this.d;
    const blocks = tables.map((_, i) => batch.flatMap((r) => r.blocks[i] ?? []));
    if (blocks.every((b) => b.length === 0)) {
      // Only records that turned out empty or were quarantined: nothing to insert.
      await this.d.retry('batch log commit', () => batchLog.commit(last));
      return;
    }
    const token = batchLog.token(first, last);
    let begun = false;
    let recorded = false;
    /** Tables whose insert returned (in order): a retry starts at the next one. */
    let done = 0;
    let anyIn = false;
    for (let attempt = 0; ; attempt++) {
      try {
        if (!begun) {
          await batchLog.begin(first, last);
          begun = true;
        }
        if (!recorded) {
          await recordBatch(store, batchLog.state.id, { first, last, state: 'begun' });
          recorded = true;
        }
        for (; done < tables.length; done++) {
          const t = tables[done];
          const parts = blocks[done] ?? [];
          if (t && parts.length > 0) {
            await this.insert(t.columns, parts, token, `${done}-${first}`, t.table);
            anyIn = true;
          }
        }
        break;
      } catch (err) {
        const short = isPermanent(err) ? await this.diskShort(blocks.flat()) : undefined;
        if (short === undefined && recorded && anyIn && isPermanent(err)) {
          // Some rows are in; only a later table's were refused. Splitting would insert the
          // rows already in again under other tokens, so keep the note and go on.
          const reason = `${tables[done]?.table ?? ''} rows of log records ${first}-${last} refused: ${String(err)}`;
          this.d.log(`ingest: ${reason}`);
          await this.d.retry('dead-letter file', () =>
            this.d.deadLetters.add(first, 0, reason, undefined),
          );
          done++;
          if (done < tables.length) continue;
          break;
        }
        if (short === undefined && recorded && isPermanent(err)) {
          this.d.faults.succeeded();
          await this.refused(batch, String(err));
          return;
        }
        // Closing with a store that does not answer: the records stay in the log for next start.
        if (this.d.closing() && attempt >= 2) {
          if (begun) this.d.abandoned({ first, last });
          throw err;
        }
        const failure: WriterFailure | undefined = short === undefined ? undefined : 'no_space';
        const why = short === undefined ? String(err) : `${String(err)} (${short})`;
        const delay = this.d.faults.failed(`insert of log records ${first}-${last}`, why, failure);
        this.d.log(
          `ingest: insert of log records ${first}-${last} failed (attempt ${attempt + 1}), will retry: ${why}`,
        );
        await sleep(delay);
      }
    }
    await this.d.retry('batch log commit', () => batchLog.commit(last));
    this.d.faults.succeeded();
    const spans = batch.reduce((n, r) => n + r.spans, 0);
    this.insertedSpans += spans;
    if (this.d.onStored) this.d.onStored(spans);
    else (this.d.observer ?? NO_OBSERVER).stored(spans);
  }

  /**
   * Why an error that looks like the data's may be the disk's: the data directory has less
   * free space than the insert needs (twice its bytes, plus 8 MiB for the engine's parts and
   * metadata). Such an error is retried, never quarantined: a healthy request must not be.
   */
  private async diskShort(parts: Buffer[]): Promise<string | undefined> {
    const need = 2 * blockBytes(parts) + 8 * 1024 * 1024;
    const free = await statfs(this.d.scratchDir).then(
      (s) => s.bavail * s.bsize,
      () => undefined,
    );
    if (free === undefined || free >= need) return undefined;
    return `only ${free} bytes free on the data disk, the insert needs about ${need}`;
  }

  /** The engine refused the batch for good: one request at a time, or into quarantine. */
  private async refused(batch: QueuedRequest[], reason: string): Promise<void> {
    const only = batch.length === 1 ? batch[0] : undefined;
    if (!only) {
      this.d.log(
        `ingest: the store refused log records ${batch[0]?.seq ?? 0}-${batch[batch.length - 1]?.seq ?? 0} (${reason}); inserting them one request at a time`,
      );
      for (const r of batch) await this.store([r]);
      return;
    }
    const payload = await this.d.retry('write-ahead log read', () => this.d.wal.read(only.seq));
    await this.d.retry('dead-letter file', () =>
      this.d.deadLetters.add(only.seq, only.spans, reason, payload),
    );
    this.d.log(
      `ingest: the store refused log record ${only.seq} (${only.spans} spans) for good, moved to the dead-letter file: ${reason}`,
    );
    await recordBatch(this.d.store, this.d.batchLog.state.id, {
      first: only.seq,
      last: only.seq,
      state: 'dead',
    }).catch(() => undefined);
    await this.d.retry('batch log commit', () => this.d.batchLog.commit(only.seq));
  }

  private insert(
    columns: readonly string[],
    parts: Buffer[],
    token: string,
    scratch: string,
    table: string,
  ): Promise<void> {
    const t0 = performance.now();
    return insertNative(this.d.store, {
      table,
      columns,
      parts,
      dedupToken: token,
      maxPartitions: this.d.maxPartitionsPerInsert,
      scratchPath: join(this.d.scratchDir, `${scratch}.native`),
    }).then(() => {
      (this.d.observer ?? NO_OBSERVER).inserted(table, (performance.now() - t0) / 1000);
    });
  }
}
