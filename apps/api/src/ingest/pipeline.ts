import { DEFAULT_LIMITS, type IngestLimits } from './limits';
import type { RateMeter } from './rate';
import { NO_OBSERVER, type IngestObserver, type OtlpProtocol } from './observer';
import { TRACES_SIGNAL, type Signal, type SignalCounts } from './signal';
import type { WriteAheadLog } from './wal';
import type { SpanWriter } from './writer';
import type { WriterHealth } from './writer-faults';

export interface SubmitResult {
  /** `full`: the write queue has no room; nothing was logged or queued. */
  status: 'ok' | 'full';
  accepted: number;
  rejected: number;
  /** Why items were rejected, and what the limits dropped ('' when neither). */
  message: string;
}

/**
 * What both receivers do with a protobuf export request of one signal: decode it to columns
 * (a DecodeError means nothing happened), reserve room in the write queue, append the bytes to
 * the write-ahead log and wait for its fsync, then hand the columns to the writer. The caller
 * acknowledges only after this resolves with `ok`.
 */
export class Pipeline {
  private readonly counts: SignalCounts;

  constructor(
    private readonly writer: SpanWriter,
    private readonly wal: WriteAheadLog,
    private readonly meter: RateMeter,
    private readonly limits: IngestLimits = DEFAULT_LIMITS,
    observer: IngestObserver = NO_OBSERVER,
    readonly signal: Signal = TRACES_SIGNAL,
  ) {
    this.counts = signal.counts(observer);
  }

  isFull(): boolean {
    return this.writer.isFull();
  }

  /** The writer's state when no insert can finish now (a full disk, the store down). */
  stuck(): WriterHealth | undefined {
    const health = this.writer.health();
    return health.stuck ? health : undefined;
  }

  async submit(payload: Buffer, protocol: OtlpProtocol = 'http'): Promise<SubmitResult> {
    const d = this.signal.decode(payload, this.limits);
    this.counts.received(protocol, d.accepted + d.rejected);
    if (d.rejected > 0) this.counts.invalid(protocol, d.rejected);
    const message = [
      d.rejected > 0 ? `${d.rejected} ${this.signal.items} rejected: ${d.rejectReason}` : '',
      d.dropMessage,
    ]
      .filter((m) => m !== '')
      .join('; ');
    const result = { accepted: d.accepted, rejected: d.rejected, message };
    const release = () => {
      d.release();
    };
    if (d.accepted === 0) {
      release();
      return { status: 'ok', ...result };
    }
    if (!this.writer.tryReserve(d.accepted)) {
      release();
      this.counts.queueFull(protocol, d.accepted);
      return { status: 'full', ...result, accepted: 0 };
    }
    const blocks = d.blocks();
    try {
      await this.wal.append(payload, (seq) => {
        this.writer.push({ seq, spans: d.accepted, blocks, arrivedMs: Date.now(), release });
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
