import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Store } from '../store';
import type { Settings } from '../config';
import { prepareForIngest } from '../store/traces-insert';
import { TYPED_ATTRIBUTES_TABLE } from '../store/typed-attributes';
import { BatchLog } from './batch-log';
import { decodeTraceRequest } from './decode-protobuf';
import { startGrpcReceiver } from './grpc-receiver';
import { startHttpReceiver } from './http-receiver';
import { Pipeline } from './pipeline';
import { RateMeter } from './rate';
import { WriteAheadLog } from './wal';
import { SpanWriter, type WriterTuning } from './writer';

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
}

export interface IngestTuning extends WriterTuning {
  /** Write-ahead-log segment size before a new file is started. */
  segmentBytes: number;
}

export const DEFAULT_TUNING: IngestTuning = {
  maxBatchSpans: 200_000,
  minBatchSpans: 50_000,
  maxDelayMs: 1000,
  segmentBytes: 64 * 1024 * 1024,
};

export interface IngestHandle {
  /** Bound ports (resolved when 0 was asked for). */
  httpPort: number;
  grpcPort: number;
  /** Accepted spans per second over the last minute. */
  spansPerSecond(): number;
  /** Spans acknowledged but not yet in the store. */
  queuedSpans(): number;
  /** Resolves when every span acknowledged so far is in the store. */
  flush(): Promise<void>;
  /** Stops the receivers, drains the queue into the store, closes the log. */
  close(): Promise<void>;
}

/** Re-queues what the log holds beyond the last applied batch; the writer inserts it first. */
function replay(
  records: { seq: number; payload: Buffer }[],
  writer: SpanWriter,
  log: (message: string) => void,
): number {
  let spans = 0;
  for (const r of records) {
    try {
      const d = decodeTraceRequest(r.payload);
      const release = () => {
        d.columns.release();
      };
      if (d.accepted === 0) {
        release();
        continue;
      }
      const traces = d.columns.tracesBlock();
      const typed = d.columns.typedBlock();
      const arrivedMs = Date.now();
      writer.push({ seq: r.seq, spans: d.accepted, traces, typed, arrivedMs, release }, true);
      spans += d.accepted;
    } catch (err) {
      // It decoded when it was accepted; if it no longer does, say so and go on.
      log(`wal: record ${r.seq} no longer decodes, skipped: ${String(err)}`);
    }
  }
  return spans;
}

export async function startIngest(opts: IngestOptions): Promise<IngestHandle> {
  const { store, settings } = opts;
  const tuning = { ...DEFAULT_TUNING, ...opts.tuning };
  const log = (message: string) => {
    if (opts.log) console.error(`tailscope: ${message}`);
  };
  const dir = join(settings.dataDir, 'ingest');
  const walDir = join(dir, 'wal');
  const scratchDir = join(dir, 'tmp');
  await rm(scratchDir, { recursive: true, force: true });
  await mkdir(scratchDir, { recursive: true });
  await mkdir(walDir, { recursive: true });
  for (const table of ['otel_traces', 'otel_traces_trace_id_ts', TYPED_ATTRIBUTES_TABLE])
    await prepareForIngest(store, table);

  const batchLog = await BatchLog.open(walDir);
  const { wal, records } = await WriteAheadLog.open({
    dir: walDir,
    segmentBytes: tuning.segmentBytes,
    appliedSeq: batchLog.state.applied,
    log,
  });
  const writer = new SpanWriter({
    ...tuning,
    store,
    batchLog,
    wal,
    scratchDir,
    maxQueueSpans: settings.queueMaxSpans,
    log,
  });
  // Replay before the receivers open, so the store holds every acknowledged span once we serve.
  const replayed = replay(records, writer, log);
  writer.forceFirstBatch(batchLog.state.pending);
  writer.start();
  await writer.drained();
  if (replayed > 0) log(`replayed ${replayed} spans from the write-ahead log`);

  const meter = new RateMeter();
  const pipeline = new Pipeline(writer, wal, meter);
  const receiverOpts = { host: settings.host, maxBytes: settings.otlpMaxBytes, pipeline, log };
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
