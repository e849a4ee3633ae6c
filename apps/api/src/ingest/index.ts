import { mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Store } from '../store';
import type { Settings } from '../config';
import type { DeadLetterStats } from './dead-letter';
import { InflightBudget } from './inflight';
import { DEFAULT_LIMITS, type IngestLimits } from './limits';
import { startGrpcReceiver } from './grpc-receiver';
import { startHttpReceiver } from './http-receiver';
import { openLane } from './lane';
import { METRICS_SIGNAL } from './metrics-signal';
import { TRACES_SIGNAL } from './signal';
import type { WalDamage } from './wal';
import type { WriterHealth, WriterTuning } from './writer';
import type { IngestObserver } from './observer';
import { TokenSet } from '../foundation';

export type { IngestObserver, OtlpProtocol, RequestOutcome, SpanRejectReason } from './observer';
export { WRITER_FAILURES, type WriterFailure } from './writer-faults';

/**
 * The OTLP ingest pipeline: receivers (HTTP :4318, gRPC :4317) -> decode straight to columns ->
 * write-ahead log (fsynced before the answer) -> bounded queue -> batched Native insert into
 * otel_traces (metrics: the otel_metrics_* tables, through a lane of their own). docs/ingest.md
 * describes the guarantees.
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
  /** The same for metrics (POST /v1/metrics, MetricsService/Export), which have their own log. */
  metrics: {
    pointsPerSecond: number;
    queuedPoints: number;
    replayBacklogPoints: number;
    walDamage: WalDamage;
    deadLetter: DeadLetterStats;
    writer: WriterHealth;
  };
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
  const scratchDir = join(dir, 'tmp');
  await rm(scratchDir, { recursive: true, force: true });
  await mkdir(scratchDir, { recursive: true });
  const laneOptions = {
    ...tuning,
    store,
    dir,
    scratchDir,
    maxQueueItems: settings.queueMaxSpans,
    limits,
    log,
    ...(opts.observer ? { observer: opts.observer } : {}),
  };
  const traces = await openLane({ ...laneOptions, signal: TRACES_SIGNAL });
  const metrics = await openLane({ ...laneOptions, signal: METRICS_SIGNAL }).catch(
    async (err: unknown) => {
      await traces.close();
      throw err;
    },
  );
  const lanes = [traces, metrics];
  const budget = new InflightBudget(settings.otlpMaxInflightBytes);
  const receiverOpts = {
    host: settings.host,
    maxBytes: settings.otlpMaxBytes,
    bodyIdleTimeoutMs: settings.otlpBodyIdleTimeoutMs,
    budget,
    pipelines: lanes.map((l) => l.pipeline),
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
    spansPerSecond: () => traces.meter.perSecond(),
    queuedSpans: () => traces.writer.queuedSpans,
    queuedBytes: () => traces.writer.queuedBytes,
    walBytes: () => directoryBytes(traces.walDir, /\.log$/),
    status: () => ({
      replayBacklogSpans: traces.writer.replayBacklogSpans,
      walDamage: { ...traces.wal.damage },
      deadLetter: { ...traces.deadLetters.stats },
      writer: traces.writer.health(),
      metrics: {
        pointsPerSecond: metrics.meter.perSecond(),
        queuedPoints: metrics.writer.queuedSpans,
        replayBacklogPoints: metrics.writer.replayBacklogSpans,
        walDamage: { ...metrics.wal.damage },
        deadLetter: { ...metrics.deadLetters.stats },
        writer: metrics.writer.health(),
      },
    }),
    flush: async () => {
      await Promise.all(lanes.map((l) => l.writer.drained()));
    },
    close() {
      closed ??= (async () => {
        await Promise.all([http.close(), grpc.close()]);
        const results = await Promise.allSettled(lanes.map((l) => l.close()));
        for (const r of results) if (r.status === 'rejected') throw r.reason;
      })();
      return closed;
    },
  };
}
