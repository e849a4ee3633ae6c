import type { Store } from '../store';
import { TYPED_ATTRIBUTES_TABLE } from '../store/traces/typed-attributes';
import { TRACE_SPANS_TABLE } from '../store/traces/trace-spans';
import { countSpans, decodeTraceRequest } from './decode-protobuf';
import { jsonToProtobuf } from './decode-json';
import type { IngestLimits } from './limits';
import type { IngestObserver, OtlpProtocol } from './observer';
import { TRACE_COLUMNS, TYPED_COLUMNS } from './span-columns';
import type { TargetTable } from './batch-store';

/**
 * What differs between the OTLP signals Tailscope ingests (traces, metrics); everything else
 * (receivers, limits, tokens, write-ahead log, batch log, writer, dead letters) is one code
 * path that takes a Signal. Each signal has its own log directory and queue, so a flood of one
 * never holds the other's acknowledgements.
 */

/** One decoded request: its items as one Native block per target table. */
export interface DecodedBlocks {
  accepted: number;
  rejected: number;
  /** The first rejection's reason ('' when none). */
  rejectReason: string;
  /** What the limits dropped or truncated ('' when nothing). */
  dropMessage: string;
  /** The blocks, one per `Signal.tables` entry (an empty list for a table with no rows). */
  blocks(): Buffer[][];
  /** Gives pooled buffers back; the blocks must not be used afterwards. */
  release(): void;
}

/** The observer's counters of one signal's items. */
export interface SignalCounts {
  received(protocol: OtlpProtocol, n: number): void;
  invalid(protocol: OtlpProtocol, n: number): void;
  queueFull(protocol: OtlpProtocol, n: number): void;
  stored(n: number): void;
}

export interface Signal {
  /** `traces` or `metrics`: the OTLP/HTTP path is `/v1/<name>`. */
  name: 'traces' | 'metrics';
  /** What its items are called in answers (`span(s)`, `data point(s)`). */
  items: string;
  /** ... and in the plural (`spans`, `metric data points`). */
  plural: string;
  /** The OTLP/JSON partial-success field (`rejectedSpans`, `rejectedDataPoints`). */
  rejectedField: string;
  grpcPath: string;
  /** The write-ahead log and dead letters, under the ingest directory. */
  walDir: string;
  deadLetterDir: string;
  decode(payload: Buffer, limits: IngestLimits): DecodedBlocks;
  /** Items in a logged request from its framing alone (0 when it does not parse). */
  count(payload: Buffer): number;
  /** OTLP/JSON -> the protobuf request (a DecodeError names what is wrong). */
  fromJson(body: Buffer): Buffer;
  tables(store: Store): TargetTable[];
  /** Tables whose dedup and fsync settings ingest relies on (prepareForIngest). */
  prepare(store: Store): string[];
  counts(observer: IngestObserver): SignalCounts;
}

const names = (columns: readonly (readonly [string, string])[]) => columns.map(([n]) => n);

export const TRACES_SIGNAL: Signal = {
  name: 'traces',
  items: 'span(s)',
  plural: 'spans',
  rejectedField: 'rejectedSpans',
  grpcPath: '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
  walDir: 'wal',
  deadLetterDir: 'dead-letter',
  decode(payload, limits) {
    const d = decodeTraceRequest(payload, limits);
    return {
      accepted: d.accepted,
      rejected: d.rejected,
      rejectReason: d.rejectReason,
      dropMessage: d.dropMessage,
      blocks: () => [d.columns.tracesBlock(), d.columns.typedBlock()],
      release: () => {
        d.columns.release();
      },
    };
  },
  count: countSpans,
  fromJson: jsonToProtobuf,
  tables: (store) => [
    { table: store.tracesTable, columns: names(TRACE_COLUMNS) },
    { table: TYPED_ATTRIBUTES_TABLE, columns: names(TYPED_COLUMNS) },
  ],
  prepare: (store) => [
    store.tracesTable,
    `${store.tracesTable}_trace_id_ts`,
    TRACE_SPANS_TABLE,
    TYPED_ATTRIBUTES_TABLE,
  ],
  counts: (o) => ({
    received: (p, n) => {
      o.spansReceived(p, n);
    },
    invalid: (p, n) => {
      o.spansRejected(p, 'invalid_span', n);
    },
    queueFull: (p, n) => {
      o.spansRejected(p, 'queue_full', n);
    },
    stored: (n) => {
      o.stored(n);
    },
  }),
};
