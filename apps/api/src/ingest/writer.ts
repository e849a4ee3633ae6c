import type { Store } from '../store';
import type { BatchLog } from './batch-log';
import type { DeadLetters } from './dead-letter';
import type { WalRecord, WriteAheadLog } from './wal';
import { NO_OBSERVER, type IngestObserver } from './observer';
import { BatchStore, type QueuedRequest, type TargetTable } from './batch-store';
import { WriterFaults, type WriterHealth } from './writer-faults';

export type { WriterHealth } from './writer-faults';
export type { QueuedRequest, TargetTable } from './batch-store';

/** A logged request not yet decoded (replay), with its span count from a quick scan. */
export interface ReplayRecord extends WalRecord {
  spans: number;
}

export interface WriterTuning {
  /** Largest insert, in spans (several requests are merged into one insert up to this). */
  maxBatchSpans: number;
  /** Below this many queued spans, wait up to `maxDelayMs` for more (fewer, larger parts). */
  minBatchSpans: number;
  maxDelayMs: number;
  /**
   * The engine's `max_partitions_per_insert_block` for our inserts (it defaults to 100: spans
   * on more days than that in one insert are refused). A batch still over it is split per
   * request; one request over it is quarantined.
   */
  maxPartitionsPerInsert: number;
  /** Longest wait between retries of an insert the engine could not take (transient). */
  maxRetryDelayMs: number;
}

export interface WriterOptions extends WriterTuning {
  store: Store;
  /** The tables a request's blocks go to, in order (traces: spans, then typed attributes). */
  tables: readonly TargetTable[];
  batchLog: BatchLog;
  wal: WriteAheadLog;
  deadLetters: DeadLetters;
  scratchDir: string;
  /** Bound of the queue, in spans: reservations beyond it are refused (429). */
  maxQueueSpans: number;
  /** Decodes a replayed record (the same decoder and limits as live requests). */
  decode: (payload: Buffer) => QueuedRequest;
  log: (message: string) => void;
  observer?: IngestObserver;
  /** Told the items of each stored batch (default: the observer's `stored`, spans). */
  onStored?: (items: number) => void;
}

const blockBytes = (parts: readonly Buffer[]) => parts.reduce((n, b) => n + b.length, 0);

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

const yieldToIo = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The bounded write queue and the loop that empties it into the store. Spans are reserved
 * before their request is logged, so memory is bounded by `maxQueueSpans` (plus one request
 * when the queue is empty, so a request larger than the bound is not refused forever).
 *
 * Replayed records wait undecoded and are decoded a batch at a time ahead of live requests
 * (which always have later seqs), so the receivers can open while replay goes on and batches
 * stay in log order. An insert the engine refuses for good is split per request; a request it
 * still refuses goes to the dead-letter file and the writer moves on. Anything else is retried
 * with backoff, forever: the data is in the log and the engine will come back. So is every disk
 * write of its own (batch log, dead-letter file): a full disk or an I/O error stops the writer
 * only until it clears, says so in `health()`, and never sends a request to quarantine.
 */
export class SpanWriter {
  private queue: QueuedRequest[] = [];
  private replay: ReplayRecord[] = [];
  /** Decoded replayed requests at the front of `queue`. */
  private replayInQueue = 0;
  private reserved = 0;
  private wake: (() => void) | undefined;
  private closing = false;
  private running: Promise<void> | undefined;
  private idle: (() => void)[] = [];
  /** A batch interrupted by a crash: the first insert must be exactly these seqs. */
  private forced: { first: number; last: number } | undefined;
  private readonly faults: WriterFaults;
  private readonly batches: BatchStore;
  private lastProgressMs = Date.now();
  /** Spans in the log still to be replayed into the store. */
  replayBacklogSpans = 0;

  constructor(private readonly opts: WriterOptions) {
    const observer = opts.observer ?? NO_OBSERVER;
    this.faults = new WriterFaults(opts.maxRetryDelayMs, (f) => {
      observer.writerFailed(f);
    });
    this.batches = new BatchStore({
      ...opts,
      faults: this.faults,
      retry: (what, op) => this.retry(what, op),
      closing: () => this.closing,
      abandoned: (range) => {
        // Its `B` is written: next time, exactly this batch again (its token must hold).
        this.forced = range;
      },
    });
  }

  /** Spans inserted since start. */
  get insertedSpans(): number {
    return this.batches.insertedSpans;
  }

  get queuedSpans(): number {
    return this.reserved;
  }

  /** Bytes waiting: decoded blocks in the queue and undecoded records still to replay. */
  get queuedBytes(): number {
    let n = 0;
    for (const r of this.queue) for (const b of r.blocks) n += blockBytes(b);
    for (const r of this.replay) n += r.payload.length;
    return n;
  }

  isFull(): boolean {
    return this.reserved >= this.opts.maxQueueSpans;
  }

  health(now = Date.now()): WriterHealth {
    const failing = this.faults.stuck();
    if (failing) return failing;
    if (this.isFull() && now - this.lastProgressMs > 10_000)
      return { stuck: true, reason: 'write queue full and no insert finished for 10 s' };
    return { stuck: false, reason: '' };
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

  /** Adds a logged request; called in log order. */
  push(req: QueuedRequest): void {
    this.queue.push(req);
    this.wake?.();
  }

  /** The records to replay (all older than anything pushed later), inserted first. */
  startReplay(records: ReplayRecord[]): void {
    this.replay = records;
    this.replayBacklogSpans = records.reduce((n, r) => n + r.spans, 0);
    this.wake?.();
  }

  /** The replayed batch that may have reached the store before the crash. */
  forceFirstBatch(batch: { first: number; last: number } | undefined): void {
    this.forced = batch;
  }

  start(): void {
    this.running ??= this.supervise();
  }

  /**
   * Runs the loop; should it throw anyway, starts it again after a backoff rather than leave
   * acknowledged requests in the queue until a restart. A batch whose `B` was written is
   * repeated as exactly that batch (`forced`), so its deduplication token holds.
   */
  private async supervise(): Promise<void> {
    for (;;) {
      try {
        await this.run();
        return;
      } catch (err) {
        if (this.closing) {
          this.opts.log(`ingest writer stopped: ${String(err)}`);
          return;
        }
        const delay = this.faults.failed('ingest writer', err);
        this.opts.log(`ingest writer failed, starting again in ${delay} ms: ${String(err)}`);
        await sleep(delay);
      }
    }
  }

  /** Runs `op` until it succeeds, with backoff (while closing, gives up after 3 attempts). */
  private async retry<T>(what: string, op: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await op();
      } catch (err) {
        if (this.closing && attempt >= 2) throw err;
        const delay = this.faults.failed(what, err);
        this.opts.log(
          `ingest: ${what} failed (attempt ${attempt + 1}), will retry: ${String(err)}`,
        );
        await sleep(delay);
      }
    }
  }

  /** Inserts what is queued without waiting for a fuller batch; resolves once it is stored. */
  drained(): Promise<void> {
    if (this.queue.length === 0 && this.replay.length === 0) return Promise.resolve();
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
      await this.decodeReplay();
      const head = this.queue[0];
      if (!head) {
        if (this.replay.length > 0) continue;
        for (const resolve of this.idle.splice(0)) resolve();
        if (this.closing) return;
        await this.waitForWork();
        // Idle is not stuck: "no insert finished for 10 s" counts from when work arrived.
        this.lastProgressMs = Date.now();
        continue;
      }
      const hurry =
        this.closing || this.forced !== undefined || this.idle.length > 0 || this.replayInQueue > 0;
      if (!hurry && this.reserved < this.opts.minBatchSpans) {
        const wait = head.arrivedMs + this.opts.maxDelayMs - Date.now();
        if (wait > 0) {
          await this.waitForWork(wait);
          continue;
        }
      }
      const batch = this.takeBatch();
      await this.batches.store(batch);
      await this.finish(batch);
    }
  }

  /** Decodes replayed records until a batch's worth (or the forced batch) is queued. */
  private async decodeReplay(): Promise<void> {
    let decoded = 0;
    for (let i = 0; i < this.replayInQueue; i++) decoded += this.queue[i]?.spans ?? 0;
    for (;;) {
      const r = this.replay[0];
      if (!r) return;
      const forcedNeeds = this.forced !== undefined && r.seq <= this.forced.last;
      if (!forcedNeeds && decoded >= this.opts.maxBatchSpans) return;
      this.replay.shift();
      let req: QueuedRequest;
      try {
        req = this.opts.decode(r.payload);
      } catch (err) {
        // It decoded when it was accepted; if it no longer does, keep it aside and go on.
        const reason = `log record ${r.seq} no longer decodes: ${String(err)}`;
        this.opts.log(`ingest: ${reason}; moved to the dead-letter file`);
        await this.retry('dead-letter file', () =>
          this.opts.deadLetters.add(r.seq, r.spans, reason, r.payload),
        );
        req = { spans: 0, blocks: [], arrivedMs: 0, release: () => undefined, seq: 0 };
      }
      req.seq = r.seq;
      req.replaySpans = r.spans;
      this.reserved += req.spans;
      decoded += req.spans;
      this.queue.splice(this.replayInQueue++, 0, req);
      // Decoding a large log must not hold the event loop: the receivers are open.
      await yieldToIo();
    }
  }

  private takeBatch(): QueuedRequest[] {
    const forced = this.forced;
    this.forced = undefined;
    // Live requests may not overtake records still waiting to be replayed.
    const limit = this.replay.length > 0 ? this.replayInQueue : this.queue.length;
    if (forced) {
      const n = this.queue.findIndex((r) => r.seq > forced.last);
      return this.queue.slice(0, Math.min(limit, n < 0 ? this.queue.length : Math.max(1, n)));
    }
    let spans = 0;
    let n = 0;
    for (const r of this.queue) {
      if (n >= limit || (n > 0 && spans + r.spans > this.opts.maxBatchSpans)) break;
      spans += r.spans;
      n++;
    }
    return this.queue.slice(0, n);
  }

  private async finish(batch: QueuedRequest[]): Promise<void> {
    const spans = batch.reduce((n, r) => n + r.spans, 0);
    for (const r of batch) {
      r.release();
      if (r.replaySpans !== undefined) this.replayBacklogSpans -= r.replaySpans;
    }
    this.queue.splice(0, batch.length);
    this.replayInQueue = Math.max(0, this.replayInQueue - batch.length);
    this.reserved -= spans;
    this.lastProgressMs = Date.now();
    const last = batch[batch.length - 1]?.seq ?? 0;
    // Removing stored segments can wait for the next batch; it is no reason to stop.
    await this.opts.wal.release(last).catch((err: unknown) => {
      this.opts.log(`ingest: could not remove stored log segments: ${String(err)}`);
    });
  }
}
