import { appendFile, mkdir, open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { frameRecord } from './wal';
import { isMachineFailure } from './writer-faults';

/**
 * Quarantine for requests the store refuses for good (an error that is the data's, not the
 * engine's state: retrying it can never succeed). Their bytes go to `dead-letter.log` in the
 * write-ahead log's framing, so nothing acknowledged is thrown away and the file can be read
 * back with the same parser; `dead-letter.jsonl` says what and why, one line per request.
 * The writer then goes on with what came after. docs/ingest.md says how to look at them.
 */

export interface DeadLetterStats {
  /** Requests (write-ahead-log records) quarantined, since the data directory was created. */
  batches: number;
  spans: number;
  lastReason: string | null;
}

export class DeadLetters {
  readonly stats: DeadLetterStats = { batches: 0, spans: 0, lastReason: null };

  private constructor(private readonly dir: string) {}

  static async open(dir: string): Promise<DeadLetters> {
    await mkdir(dir, { recursive: true });
    const d = new DeadLetters(dir);
    const text = await readFile(join(dir, 'dead-letter.jsonl'), 'utf8').catch(() => '');
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      try {
        const e = JSON.parse(line) as { spans?: unknown; reason?: unknown };
        d.stats.batches++;
        if (typeof e.spans === 'number') d.stats.spans += e.spans;
        if (typeof e.reason === 'string') d.stats.lastReason = e.reason;
      } catch {
        // A line cut short by a crash: the record itself is in dead-letter.log.
      }
    }
    return d;
  }

  /** Keeps the request's bytes (when still available) and the reason, durably. */
  async add(
    seq: number,
    spans: number,
    reason: string,
    payload: Buffer | undefined,
  ): Promise<void> {
    if (payload) {
      const fh = await open(join(this.dir, 'dead-letter.log'), 'a');
      try {
        await fh.writev(frameRecord(seq, payload));
        await fh.datasync();
      } finally {
        await fh.close();
      }
    }
    const line = JSON.stringify({
      seq,
      spans,
      reason,
      at: new Date().toISOString(),
      kept: !!payload,
    });
    await appendFile(join(this.dir, 'dead-letter.jsonl'), line + '\n', { flush: true });
    this.stats.batches++;
    this.stats.spans += spans;
    this.stats.lastReason = reason;
  }
}

const TRANSIENT_CODES = new Set([
  60, // UNKNOWN_TABLE: detached or being recreated
  159, // TIMEOUT_EXCEEDED
  164, // READONLY
  202, // TOO_MANY_SIMULTANEOUS_QUERIES
  209, // SOCKET_TIMEOUT
  210, // NETWORK_ERROR
  236, // ABORTED
  241, // MEMORY_LIMIT_EXCEEDED
  242, // TABLE_IS_READ_ONLY
  243, // NOT_ENOUGH_SPACE
  252, // TOO_MANY_PARTS (merges behind); "Too many partitions" shares the code, see below
  319, // UNKNOWN_STATUS_OF_INSERT
  425, // SYSTEM_ERROR
  999, // KEEPER_EXCEPTION
]);

/**
 * Whether an insert error can never succeed on retry. Errors without a ClickHouse code (the
 * server unreachable, a scratch file that could not be written), errors about the disk and the
 * codes above are the engine's state: retried with backoff. Any other engine error is about the
 * data.
 */
export function isPermanent(err: unknown): boolean {
  // A full disk or an I/O error, whatever code the engine gives it (a scratch file it could not
  // read back, a part it could not write), is the machine's state: never the data's fault.
  if (isMachineFailure(err)) return false;
  const message = String((err as { message?: unknown } | undefined)?.message ?? err);
  if (/Too many partitions for single INSERT block/i.test(message)) return true;
  const raw = (err as { code?: unknown } | undefined)?.code;
  const code =
    typeof raw === 'string' && /^\d+$/.test(raw)
      ? Number(raw)
      : Number(/\bCode: (\d+)/.exec(message)?.[1] ?? NaN);
  if (Number.isNaN(code)) return false;
  return !TRANSIENT_CODES.has(code);
}
