import { mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Store } from '../store';
import type { Settings } from '../config';
import { prepareForIngest } from '../store/traces-insert';
import { lastRecordedBatch } from '../store/ingest-batches';
import { TYPED_ATTRIBUTES_TABLE } from '../store/typed-attributes';
import { BatchLog } from './batch-log';
import { countSpans, decodeTraceRequest } from './decode-protobuf';
import { DeadLetters, type DeadLetterStats } from './dead-letter';
import { InflightBudget } from './inflight';
import { DEFAULT_LIMITS, type IngestLimits } from './limits';
import { startGrpcReceiver } from './grpc-receiver';
import { startHttpReceiver } from './http-receiver';
import { Pipeline } from './pipeline';
import { RateMeter } from './rate';
import { WriteAheadLog, type WalDamage } from './wal';
import { SpanWriter, type QueuedRequest, type WriterHealth, type WriterTuning } from './writer';
import type { IngestObserver } from './observer';
import { TokenSet } from '../foundation';

export type { IngestObserver, OtlpProtocol, RequestOutcome, SpanRejectReason } from './observer';
export { WRITER_FAILURES, type WriterFailure } from './writer-faults';

/**
 * The OTLP ingest pipeline: receivers (HTTP :4318, gRPC :4317) -> decode straight to columns ->
 * write-ahead log (fsynced before the answer) -> bounded queue -> batched Native insert into
 * otel_traces. docs/ingest.md describes the guarantees.
 */
export interface IngestOptions {
  store: Store;
  settings: Settings;
  log: boolean;
  /** Knobs for tests and benchmarks; the defaults suit production. */
  tuning?: Partial<IngestTuning>;
  /** Told about requests, spans and inserts (the server's /metrics). */
  observer?: IngestObserver;
}

export interface IngestTuning extends WriterTuning {
  /** Write-ahead-log segment size before a new file is started. */
  segmentBytes: number;
}

const DEFAULT_TUNING: IngestTuning = {
  maxBatchSpans: 200_000,
  minBatchSpans: 50_000,
  maxDelayMs: 1000,
  segmentBytes: 64 * 1024 * 1024,
  maxPartitionsPerInsert: 1000,
  maxRetryDelayMs: 30_000,
};

/** What ingest reports in /api/v1/stats and /readyz. */
export interface IngestStatus {
  /** Spans in the write-ahead log not yet replayed into the store (after a restart). */
  replayBacklogSpans: number;
  /** What replay had to skip: damaged records and a torn tail. */
  walDamage: WalDamage;
  deadLetter: DeadLetterStats;
  writer: WriterHealth;
}

export interface IngestHandle {
  /** Bound ports (resolved when 0 was asked for). */
  httpPort: number;
  grpcPort: number;
  /** Accepted spans per second over the last minute. */
  spansPerSecond(): number;
  /** Spans acknowledged but not yet in the store. */
  queuedSpans(): number;
  /** Bytes of those spans held in memory (decoded blocks and records still to replay). */
  queuedBytes(): number;
  /** Bytes of write-ahead-log segments on disk. */
  walBytes(): Promise<number>;
  status(): IngestStatus;
  /** Resolves when every span acknowledged so far is in the store. */
  flush(): Promise<void>;
  /** Stops the receivers, drains the queue into the store, closes the log. */
  close(): Promise<void>;
}

function limitsFrom(settings: Settings): IngestLimits {
  return {
    ...DEFAULT_LIMITS,
    maxAttributes: settings.otlpMaxAttributes,
    maxEventsPerSpan: settings.otlpMaxEvents,
    maxLinksPerSpan: settings.otlpMaxLinks,
    maxValueBytes: settings.otlpMaxValueBytes,
  };
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

/** The certificate and key both receivers speak TLS with, when configured. */
export async function readTls(
  settings: Settings,
): Promise<{ tls?: { cert: Buffer; key: Buffer } }> {
  if (settings.tlsCert === undefined || settings.tlsKey === undefined) return {};
  return { tls: { cert: await readFile(settings.tlsCert), key: await readFile(settings.tlsKey) } };
}

async function directoryBytes(dir: string, name: RegExp): Promise<number> {
  let total = 0;
  for (const f of await readdir(dir).catch(() => [])) {
    // A segment removed between the listing and its stat counts as nothing.
    if (name.test(f))
      total += await stat(join(dir, f)).then(
        (s) => s.size,
        () => 0,
      );
  }
  return total;
}

export async function startIngest(opts: IngestOptions): Promise<IngestHandle> {
  const { store, settings } = opts;
  const tuning = { ...DEFAULT_TUNING, ...opts.tuning };
  const limits = limitsFrom(settings);
  const log = (message: string) => {
    if (opts.log) console.error(`tailscope: ${message}`);
  };
  const dir = join(settings.dataDir, 'ingest');
  const walDir = join(dir, 'wal');
  const scratchDir = join(dir, 'tmp');
  await rm(scratchDir, { recursive: true, force: true });
  await mkdir(scratchDir, { recursive: true });
  await mkdir(walDir, { recursive: true });
  for (const table of [
    store.tracesTable,
    `${store.tracesTable}_trace_id_ts`,
    TYPED_ATTRIBUTES_TABLE,
  ])
    await prepareForIngest(store, table);

  const batchLog = await BatchLog.open(walDir);
  await recoverBatchLog(store, batchLog, log);
  const deadLetters = await DeadLetters.open(join(dir, 'dead-letter'));
  const { wal, records } = await WriteAheadLog.open({
    dir: walDir,
    id: batchLog.state.id,
    segmentBytes: tuning.segmentBytes,
    appliedSeq: batchLog.state.applied,
    log,
  });
  const decode = (payload: Buffer): QueuedRequest => {
    const d = decodeTraceRequest(payload, limits);
    return {
      seq: 0,
      spans: d.accepted,
      traces: d.accepted > 0 ? d.columns.tracesBlock() : [],
      typed: d.accepted > 0 ? d.columns.typedBlock() : [],
      arrivedMs: Date.now(),
      release: () => {
        d.columns.release();
      },
    };
  };
  const writer = new SpanWriter({
    ...tuning,
    store,
    batchLog,
    wal,
    deadLetters,
    scratchDir,
    maxQueueSpans: settings.queueMaxSpans,
    decode,
    log,
    ...(opts.observer ? { observer: opts.observer } : {}),
  });
  // Replay goes on in the background, ahead of new requests: the receivers open at once.
  const backlog = records.map((r) => ({ ...r, spans: countSpans(r.payload) }));
  writer.startReplay(backlog);
  writer.forceFirstBatch(batchLog.state.pending);
  writer.start();
  if (backlog.length > 0) {
    const spans = writer.replayBacklogSpans;
    log(`replaying ${spans} spans (${backlog.length} requests) from the write-ahead log`);
    void writer.drained().then(() => {
      log(`replayed ${spans} spans from the write-ahead log`);
    });
  }

  const meter = new RateMeter();
  const pipeline = new Pipeline(writer, wal, meter, limits, opts.observer);
  const budget = new InflightBudget(settings.otlpMaxInflightBytes);
  const receiverOpts = {
    host: settings.host,
    maxBytes: settings.otlpMaxBytes,
    bodyIdleTimeoutMs: settings.otlpBodyIdleTimeoutMs,
    budget,
    pipeline,
    log,
    tokens: new TokenSet(settings.ingestTokens),
    ...(opts.observer ? { observer: opts.observer } : {}),
    ...(await readTls(settings)),
  };
  const http = await startHttpReceiver({ ...receiverOpts, port: settings.otlpHttpPort });
  const grpc = await startGrpcReceiver({ ...receiverOpts, port: settings.otlpGrpcPort }).catch(
    async (err: unknown) => {
      await http.close();
      throw err;
    },
  );

  let closed: Promise<void> | undefined;
  return {
    httpPort: http.port,
    grpcPort: grpc.port,
    spansPerSecond: () => meter.perSecond(),
    queuedSpans: () => writer.queuedSpans,
    queuedBytes: () => writer.queuedBytes,
    walBytes: () => directoryBytes(walDir, /\.log$/),
    status: () => ({
      replayBacklogSpans: writer.replayBacklogSpans,
      walDamage: { ...wal.damage },
      deadLetter: { ...deadLetters.stats },
      writer: writer.health(),
    }),
    flush: () => writer.drained(),
    close() {
      closed ??= (async () => {
        await Promise.all([http.close(), grpc.close()]);
        try {
          await writer.close();
        } finally {
          await wal.close();
          await batchLog.close();
        }
      })();
      return closed;
    },
  };
}
