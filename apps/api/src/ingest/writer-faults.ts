/**
 * What keeps the ingest writer from finishing inserts, told apart by the operator's remedy: a
 * full disk (free space), an I/O error (look at the disk), or the store (the engine or server
 * refusing for now). Labels of `tailscope_ingest_writer_failures_total` and of the stuck gauge,
 * so a bounded set.
 */
export type WriterFailure = 'no_space' | 'io_error' | 'store_error';

export const WRITER_FAILURES: readonly WriterFailure[] = ['no_space', 'io_error', 'store_error'];

const NO_SPACE_CODES = new Set(['ENOSPC', 'EDQUOT', 'EFBIG']);
const IO_CODES = new Set(['EIO', 'EROFS']);
const NO_SPACE_TEXT =
  /\bENOSPC\b|no space left|not enough space|NOT_ENOUGH_SPACE|disk quota|errno:? 28\b|short write/i;
const IO_TEXT = /\bEIO\b|\bEROFS\b|input\/output error|read-only file system|errno:? (5|30)\b/i;

/** Which kind of failure `err` is (Node's `code`, or the engine's message about the disk). */
export function failureOf(err: unknown): WriterFailure {
  const code = (err as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && NO_SPACE_CODES.has(code)) return 'no_space';
  if (typeof code === 'string' && IO_CODES.has(code)) return 'io_error';
  const message = String((err as { message?: unknown } | undefined)?.message ?? err);
  if (NO_SPACE_TEXT.test(message)) return 'no_space';
  if (IO_TEXT.test(message)) return 'io_error';
  return 'store_error';
}

/** A failure of the machine (disk full, I/O): never the data's fault, always worth a retry. */
export function isMachineFailure(err: unknown): boolean {
  return failureOf(err) !== 'store_error';
}

/** The writer's health, for /readyz, /metrics and the OTLP receivers. */
export interface WriterHealth {
  /** The writer cannot make progress: inserts keep failing, or the queue is full and stalled. */
  stuck: boolean;
  reason: string;
  /** While stuck on failures: which kind. */
  failure?: WriterFailure;
  /** While stuck: when a client should try again (the writer's next retry, at least 1 s). */
  retryAfterSeconds?: number;
}

/** Consecutive failures of the writer's disk and store operations, and what they were. */
export class WriterFaults {
  private consecutive = 0;
  private lastError = '';
  private lastFailure: WriterFailure = 'store_error';
  private delayMs = 0;

  constructor(
    private readonly maxDelayMs: number,
    private readonly onFailure: (failure: WriterFailure) => void,
  ) {}

  get failures(): number {
    return this.consecutive;
  }

  /**
   * Notes a failure of `what` (of kind `failure`, else as `err` says); returns how long to wait
   * before trying again.
   */
  failed(what: string, err: unknown, failure = failureOf(err)): number {
    this.consecutive++;
    this.lastFailure = failure;
    this.lastError = `${what}: ${String(err)}`;
    this.onFailure(this.lastFailure);
    this.delayMs = Math.min(this.maxDelayMs, 100 * 2 ** Math.min(this.consecutive - 1, 20));
    return this.delayMs;
  }

  succeeded(): void {
    this.consecutive = 0;
  }

  /** Stuck after two failures in a row (one may be a blip), undefined otherwise. */
  stuck(): WriterHealth | undefined {
    if (this.consecutive < 2) return undefined;
    return {
      stuck: true,
      reason: `${this.lastFailure}: ${this.consecutive} attempts failed, retrying: ${this.lastError}`,
      failure: this.lastFailure,
      retryAfterSeconds: Math.max(1, Math.ceil(this.delayMs / 1000)),
    };
  }
}
