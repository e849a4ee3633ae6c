import { join } from 'node:path';
import type { Store } from '../store';
import { insertNative } from '../store/traces-insert';
import { TYPED_ATTRIBUTES_TABLE } from '../store/typed-attributes';
import { TRACE_COLUMNS, TYPED_COLUMNS } from './span-columns';
import type { BatchLog } from './batch-log';
import type { WriteAheadLog } from './wal';

/** One acknowledged request waiting for the store: its log seq and its Native blocks. */
export interface QueuedRequest {
  seq: number;
  spans: number;
  traces: Buffer[];
  typed: Buffer[];
  arrivedMs: number;
  /** Called once the blocks are in the store (their buffers are reused). */
  release: () => void;
}

export interface WriterTuning {
  /** Largest insert, in spans (several requests are merged into one insert up to this). */
  maxBatchSpans: number;
  /** Below this many queued spans, wait up to `maxDelayMs` for more (fewer, larger parts). */
  minBatchSpans: number;
  maxDelayMs: number;
}

export interface WriterOptions extends WriterTuning {
  store: Store;
  batchLog: BatchLog;
  wal: WriteAheadLog;
  scratchDir: string;
  /** Bound of the queue, in spans: reservations beyond it are refused (429). */
  maxQueueSpans: number;
  log: (message: string) => void;
}

const TRACE_NAMES = TRACE_COLUMNS.map(([name]) => name);
const TYPED_NAMES = TYPED_COLUMNS.map(([name]) => name);

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The bounded write queue and the loop that empties it into the store. Spans are reserved
 * before their request is logged, so memory is bounded by `maxQueueSpans` (plus one request
 * when the queue is empty, so a request larger than the bound is not refused forever).
 */
export class SpanWriter {
  private queue: QueuedRequest[] = [];
  private reserved = 0;
  private wake: (() => void) | undefined;
  private closing = false;
  private running: Promise<void> | undefined;
  private idle: (() => void)[] = [];
  /** A batch interrupted by a crash: the first insert must be exactly these seqs. */
  private forced: { first: number; last: number } | undefined;
  insertedSpans = 0;

  constructor(private readonly opts: WriterOptions) {}

  get queuedSpans(): number {
    return this.reserved;
  }

  isFull(): boolean {
    return this.reserved >= this.opts.maxQueueSpans;
  }

  tryReserve(spans: number): boolean {
    if (this.closing) return false;
    if (this.reserved > 0 && this.reserved + spans > this.opts.maxQueueSpans) return false;
    this.reserved += spans;
    return true;
  }

  unreserve(spans: number): void {
    this.reserved -= spans;
  }

  /** Adds a logged request; called in log order. Replayed requests reserve here. */
  push(req: QueuedRequest, reserve = false): void {
    if (reserve) this.reserved += req.spans;
    this.queue.push(req);
    this.wake?.();
  }

  /** The replayed batch that may have reached the store before the crash. */
  forceFirstBatch(batch: { first: number; last: number } | undefined): void {
    this.forced = batch;
  }

  start(): void {
    this.running ??= this.run().catch((err: unknown) => {
      this.opts.log(`ingest writer stopped: ${String(err)}`);
    });
  }

  /** Inserts what is queued without waiting for a fuller batch; resolves once it is stored. */
  drained(): Promise<void> {
    if (this.queue.length === 0) return Promise.resolve();
    const done = new Promise<void>((resolve) => this.idle.push(resolve));
    this.wake?.();
    return done;
  }

  /** Inserts what is queued, then stops. */
  async close(): Promise<void> {
    this.closing = true;
    this.wake?.();
    this.start();
    await this.running;
  }

  private waitForWork(ms?: number): Promise<void> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        if (timer) clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      if (ms !== undefined) timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  private async run(): Promise<void> {
    for (;;) {
      const head = this.queue[0];
      if (!head) {
        for (const resolve of this.idle.splice(0)) resolve();
        if (this.closing) return;
        await this.waitForWork();
        continue;
      }
      const hurry = this.closing || this.forced !== undefined || this.idle.length > 0;
      if (!hurry && this.reserved < this.opts.minBatchSpans) {
        const wait = head.arrivedMs + this.opts.maxDelayMs - Date.now();
        if (wait > 0) {
          await this.waitForWork(wait);
          continue;
        }
      }
      await this.insertBatch(this.takeBatch());
    }
  }

  private takeBatch(): QueuedRequest[] {
    const forced = this.forced;
    this.forced = undefined;
    if (forced) {
      const n = this.queue.findIndex((r) => r.seq > forced.last);
      return this.queue.slice(0, n < 0 ? this.queue.length : Math.max(1, n));
    }
    let spans = 0;
    let n = 0;
    for (const r of this.queue) {
      if (n > 0 && spans + r.spans > this.opts.maxBatchSpans) break;
      spans += r.spans;
      n++;
    }
    return this.queue.slice(0, n);
  }

  private async insertBatch(batch: QueuedRequest[]): Promise<void> {
    const first = batch[0]?.seq ?? 0;
    const last = batch[batch.length - 1]?.seq ?? 0;
    const { store, batchLog } = this.opts;
    const token = batchLog.token(first, last);
    await batchLog.begin(first, last);
    const traces = batch.flatMap((r) => r.traces);
    const typed = batch.flatMap((r) => r.typed);
    for (let attempt = 0; ; attempt++) {
      try {
        await insertInto(
          store,
          TRACE_NAMES,
          traces,
          token,
          join(this.opts.scratchDir, `t-${first}.native`),
        );
        await insertInto(
          store,
          TYPED_NAMES,
          typed,
          token,
          join(this.opts.scratchDir, `a-${first}.native`),
          TYPED_ATTRIBUTES_TABLE,
        );
        break;
      } catch (err) {
        this.opts.log(
          `ingest: insert of log records ${first}-${last} failed (attempt ${attempt + 1}): ${String(err)}`,
        );
        // Closing with a store that does not answer: the records stay in the log for next start.
        if (this.closing && attempt >= 2) throw err;
        await sleep(Math.min(5000, 100 * 2 ** attempt));
      }
    }
    await batchLog.commit(last);
    const spans = batch.reduce((n, r) => n + r.spans, 0);
    for (const r of batch) r.release();
    this.queue.splice(0, batch.length);
    this.reserved -= spans;
    this.insertedSpans += spans;
    await this.opts.wal.release(last);
  }
}

function insertInto(
  store: Store,
  columns: readonly string[],
  parts: Buffer[],
  token: string,
  scratchPath: string,
  table = 'otel_traces',
): Promise<void> {
  return insertNative(store, { table, columns, parts, dedupToken: token, scratchPath });
}
