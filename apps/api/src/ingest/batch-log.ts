import { randomBytes } from 'node:crypto';
import { open, readdir, readFile, rename, rm, writeFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { idFromSegmentNames } from './wal';

/**
 * Which write-ahead-log records are in the store. Before a batch of records [first, last] is
 * inserted, `B first last` is written and fsynced; after the insert returns, `C last`. On start:
 * records up to the last C are skipped; a B without its C is re-inserted as exactly the same
 * batch with the same deduplication token, so if the crash came after the engine committed it,
 * the engine drops the repeat. That is how replay stays exactly-once.
 *
 * The token carries a random id of this data directory, so two Tailscope instances writing to
 * one ClickHouse server never collide.
 *
 * This file is a fast local copy: every `B` is also recorded in the store
 * (store/ingest-batches.ts) before its insert, so when this file is lost or garbled, start-up
 * takes the newer state from the store and re-inserts nothing that is already there.
 */

export interface BatchState {
  /** Every record up to this seq is in the store. */
  applied: number;
  /** A batch that was being inserted when the process stopped. */
  pending: { first: number; last: number } | undefined;
  /** This data directory's id, the prefix of every deduplication token. */
  id: string;
}

export function parseBatchLog(text: string): Omit<BatchState, 'id'> {
  let applied = 0;
  let pending: { first: number; last: number } | undefined;
  // Only whole lines count: text after the last newline is a write cut short by a crash.
  const lines = text.split('\n').slice(0, -1);
  for (const line of lines) {
    const parts = line.split(' ');
    if (parts[0] === 'B' && parts.length === 3) {
      const first = Number(parts[1]);
      const last = Number(parts[2]);
      if (Number.isSafeInteger(first) && Number.isSafeInteger(last) && first <= last)
        pending = { first, last };
    } else if (parts[0] === 'C' && parts.length === 2) {
      const last = Number(parts[1]);
      if (Number.isSafeInteger(last)) {
        applied = Math.max(applied, last);
        if (pending && pending.last <= applied) pending = undefined;
      }
    }
  }
  return { applied, pending };
}

export class BatchLog {
  private size = 0;

  private constructor(
    private readonly dir: string,
    private fh: FileHandle,
    readonly state: BatchState,
    private readonly compactBytes: number,
  ) {}

  /** `compactBytes`: past this size the log is rewritten as its one current line. */
  static async open(dir: string, compactBytes = 256 * 1024): Promise<BatchLog> {
    const idPath = join(dir, 'id');
    let id = (await readFile(idPath, 'utf8').catch(() => '')).trim();
    if (!/^[0-9a-f]{16}$/.test(id)) {
      // Lost or garbled: the log's segment names carry it too. Only a directory without either
      // gets a new id (and then has nothing to replay that an old id could match).
      id = idFromSegmentNames(await readdir(dir)) ?? randomBytes(8).toString('hex');
      await writeFile(idPath, id + '\n', { flush: true });
    }
    const path = join(dir, 'batches.log');
    const text = await readFile(path, 'utf8').catch(() => '');
    const state = { ...parseBatchLog(text), id };
    const fh = await open(path, 'a');
    const log = new BatchLog(dir, fh, state, compactBytes);
    log.size = Buffer.byteLength(text);
    return log;
  }

  token(first: number, last: number): string {
    return `${this.state.id}:${first}-${last}`;
  }

  /** Records the batch about to be inserted; durable before the insert starts. */
  async begin(first: number, last: number): Promise<void> {
    await this.write(`B ${first} ${last}\n`);
    await this.fh.datasync();
    this.state.pending = { first, last };
  }

  /** Takes a newer state (from the store's record of batches) over what this file said. */
  adopt(state: Omit<BatchState, 'id'>): void {
    this.state.applied = state.applied;
    this.state.pending = state.pending;
  }

  /** Records that the batch is in the store. No fsync: losing it only means a deduplicated retry. */
  async commit(last: number): Promise<void> {
    this.state.applied = Math.max(this.state.applied, last);
    this.state.pending = undefined;
    await this.write(`C ${last}\n`);
    if (this.size > this.compactBytes) await this.compact();
  }

  /**
   * Appends the whole line or nothing: a write cut short (a full disk) is cut off again, so a
   * retry does not glue a fragment to the next line and hide a `B` from replay.
   */
  private async write(line: string): Promise<void> {
    const bytes = Buffer.from(line, 'utf8');
    try {
      let done = 0;
      while (done < bytes.length) {
        const { bytesWritten } = await this.fh.write(bytes, done, bytes.length - done);
        if (bytesWritten === 0)
          throw Object.assign(new Error('ENOSPC: short write'), { code: 'ENOSPC' });
        done += bytesWritten;
      }
    } catch (err) {
      await this.fh.truncate(this.size).catch(() => undefined);
      throw err;
    }
    this.size += bytes.length;
  }

  /** Rewrites the log as its one current line (written beside it, then renamed over it). */
  private async compact(): Promise<void> {
    const path = join(this.dir, 'batches.log');
    const tmp = path + '.tmp';
    const line = `C ${this.state.applied}\n`;
    try {
      await writeFile(tmp, line, { flush: true });
    } catch {
      // No room for the copy (a full disk): keep appending to the long log, compact later.
      await rm(tmp, { force: true }).catch(() => undefined);
      return;
    }
    await this.fh.close();
    await rename(tmp, path);
    this.fh = await open(path, 'a');
    this.size = line.length;
  }

  async close(): Promise<void> {
    await this.fh.close();
  }
}
