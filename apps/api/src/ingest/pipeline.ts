import { decodeTraceRequest } from './decode-protobuf';
import { DEFAULT_LIMITS, type IngestLimits } from './limits';
import type { RateMeter } from './rate';
import { NO_OBSERVER, type IngestObserver, type OtlpProtocol } from './observer';
import type { WriteAheadLog } from './wal';
import type { SpanWriter } from './writer';
import type { WriterHealth } from './writer-faults';

export interface SubmitResult {
  /** `full`: the write queue has no room; nothing was logged or queued. */
  status: 'ok' | 'full';
  accepted: number;
  rejected: number;
  /** Why spans were rejected, and what the limits dropped ('' when neither). */
  message: string;
}

/**
 * What both receivers do with a protobuf ExportTraceServiceRequest: decode it to columns
 * (a DecodeError means nothing happened), reserve room in the write queue, append the bytes to
 * the write-ahead log and wait for its fsync, then hand the columns to the writer. The caller
 * acknowledges only after this resolves with `ok`.
 */
export class Pipeline {
  constructor(
    private readonly writer: SpanWriter,
    private readonly wal: WriteAheadLog,
    private readonly meter: RateMeter,
    private readonly limits: IngestLimits = DEFAULT_LIMITS,
    private readonly observer: IngestObserver = NO_OBSERVER,
  ) {}

  isFull(): boolean {
    return this.writer.isFull();
  }

  /** The writer's state when no insert can finish now (a full disk, the store down). */
  stuck(): WriterHealth | undefined {
    const health = this.writer.health();
    return health.stuck ? health : undefined;
  }

  async submit(payload: Buffer, protocol: OtlpProtocol = 'http'): Promise<SubmitResult> {
    const d = decodeTraceRequest(payload, this.limits);
    this.observer.spansReceived(protocol, d.accepted + d.rejected);
    if (d.rejected > 0) this.observer.spansRejected(protocol, 'invalid_span', d.rejected);
    const message = [
      d.rejected > 0 ? `${d.rejected} span(s) rejected: ${d.rejectReason}` : '',
      d.dropMessage,
    ]
      .filter((m) => m !== '')
      .join('; ');
    const result = { accepted: d.accepted, rejected: d.rejected, message };
    const release = () => {
      d.columns.release();
    };
    if (d.accepted === 0) {
      release();
      return { status: 'ok', ...result };
    }
    if (!this.writer.tryReserve(d.accepted)) {
      release();
      this.observer.spansRejected(protocol, 'queue_full', d.accepted);
      return { status: 'full', ...result, accepted: 0 };
    }
    const traces = d.columns.tracesBlock();
    const typed = d.columns.typedBlock();
    try {
      await this.wal.append(payload, (seq) => {
        this.writer.push({ seq, spans: d.accepted, traces, typed, arrivedMs: Date.now(), release });
      });
    } catch (err) {
      this.writer.unreserve(d.accepted);
      release();
      throw err;
    }
    this.meter.record(d.accepted);
    return { status: 'ok', ...result };
  }
}
