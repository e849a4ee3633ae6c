import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Store } from '../store';
import { prepareForIngest } from '../store/writes/insert';
import { lastRecordedBatch } from '../store/writes/batches';
import { BatchLog } from './batch-log';
import { DeadLetters } from './dead-letter';
import type { IngestLimits } from './limits';
import { NO_OBSERVER, type IngestObserver } from './observer';
import { Pipeline } from './pipeline';
import { RateMeter } from './rate';
import type { Signal } from './signal';
import { WriteAheadLog } from './wal';
import { SpanWriter, type QueuedRequest, type WriterTuning } from './writer';

/**
 * One signal's way into the store: its own write-ahead log, batch log, dead letters, bounded
 * queue and writer, behind a Pipeline the receivers submit to. Traces and metrics each get a
 * lane; the code is the same.
 */
export interface Lane {
  signal: Signal;
  pipeline: Pipeline;
  writer: SpanWriter;
  wal: WriteAheadLog;
  batchLog: BatchLog;
  deadLetters: DeadLetters;
  meter: RateMeter;
  walDir: string;
  close(): Promise<void>;
}

export interface LaneOptions extends WriterTuning {
  store: Store;
  signal: Signal;
  /** The ingest directory (`<dataDir>/ingest`). */
  dir: string;
  scratchDir: string;
  segmentBytes: number;
  maxQueueItems: number;
  limits: IngestLimits;
  log: (message: string) => void;
  observer?: IngestObserver;
}

/**
 * When the local batch log is behind the store's record of batches (the file was lost or
 * garbled), the store's record wins: its newest batch may be unfinished and is repeated with
 * its own token; everything before it is in.
 */
async function recoverBatchLog(
  store: Store,
  batchLog: BatchLog,
  log: (message: string) => void,
): Promise<void> {
  const remote = await lastRecordedBatch(store, batchLog.state.id);
  const local = batchLog.state;
  if (!remote || remote.last <= local.applied) return;
  if (local.pending && local.pending.first === remote.first && local.pending.last === remote.last)
    return;
  const state =
    remote.state === 'dead'
      ? { applied: remote.last, pending: undefined }
      : { applied: remote.first - 1, pending: { first: remote.first, last: remote.last } };
  log(
    `ingest: the batch log says records up to ${local.applied} are stored, the store says ${state.applied}: the batch log was lost or damaged, using the store's record`,
  );
  batchLog.adopt(state);
}

export async function openLane(opts: LaneOptions): Promise<Lane> {
  const { store, signal, log, limits } = opts;
  const observer = opts.observer ?? NO_OBSERVER;
  const counts = signal.counts(observer);
  for (const table of signal.prepare(store)) await prepareForIngest(store, table);
  const walDir = join(opts.dir, signal.walDir);
  await mkdir(walDir, { recursive: true });
  const batchLog = await BatchLog.open(walDir);
  await recoverBatchLog(store, batchLog, log);
  const deadLetters = await DeadLetters.open(join(opts.dir, signal.deadLetterDir));
  const { wal, records } = await WriteAheadLog.open({
    dir: walDir,
    id: batchLog.state.id,
    segmentBytes: opts.segmentBytes,
    appliedSeq: batchLog.state.applied,
    log,
  });
  const decode = (payload: Buffer): QueuedRequest => {
    const d = signal.decode(payload, limits);
    return {
      seq: 0,
      spans: d.accepted,
      blocks: d.accepted > 0 ? d.blocks() : [],
      arrivedMs: Date.now(),
      release: () => {
        d.release();
      },
    };
  };
  const writer = new SpanWriter({
    ...opts,
    tables: signal.tables(store),
    batchLog,
    wal,
    deadLetters,
    maxQueueSpans: opts.maxQueueItems,
    decode,
    observer,
    onStored: (n) => {
      counts.stored(n);
    },
  });
  // Replay goes on in the background, ahead of new requests: the receivers open at once.
  const backlog = records.map((r) => ({ ...r, spans: signal.count(r.payload) }));
  writer.startReplay(backlog);
  writer.forceFirstBatch(batchLog.state.pending);
  writer.start();
  if (backlog.length > 0) {
    const items = writer.replayBacklogSpans;
    // Traces keep their original wording ("replayed N spans from the write-ahead log").
    const from =
      signal.name === 'traces' ? 'the write-ahead log' : `the ${signal.name} write-ahead log`;
    log(`replaying ${items} ${signal.plural} (${backlog.length} requests) from ${from}`);
    void writer.drained().then(() => {
      log(`replayed ${items} ${signal.plural} from ${from}`);
    });
  }
  const meter = new RateMeter();
  const pipeline = new Pipeline(writer, wal, meter, limits, observer, signal);
  return {
    signal,
    pipeline,
    writer,
    wal,
    batchLog,
    deadLetters,
    meter,
    walDir,
    async close() {
      try {
        await writer.close();
      } finally {
        await wal.close();
        await batchLog.close();
      }
    },
  };
}
