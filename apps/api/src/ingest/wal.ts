import { mkdir, open, readdir, readFile, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';

import {
  LEGACY_SEGMENT,
  SEGMENT,
  frameRecord,
  parseLegacySegment,
  parseSegment,
  type WalDamage,
  type WalRecord,
} from './wal-format';

export {
  frameRecord,
  idFromSegmentNames,
  parseLegacySegment,
  parseSegment,
  type ParsedSegment,
  type WalDamage,
  type WalRecord,
} from './wal-format';

/**
 * The write-ahead log: a 200 from the OTLP receivers means the request's bytes are here and
 * fsynced. Appends are grouped: while one write+fdatasync is in flight, every request that
 * arrives queues for the next one, so one fsync acknowledges many requests.
 *
 * Layout: segment files `wal-<first seq>-<data dir id>.log`, each a run of records
 *   u32 magic | u32 payload length | u64 seq | u32 crc32(payload) | u32 crc32(the 20 bytes before) | payload
 * The header has its own checksum and a magic number to find the next record by, so damage is
 * contained: a bad payload checksum skips exactly that record (its length is trusted, the
 * header being intact); a bad header skips to the next intact header. Either way replay says
 * what it skipped and keeps the rest. A record cut short at the end of the newest segment is a
 * torn tail (a crash mid-write, never acknowledged) and is cut off before appending resumes.
 * Sequence numbers only ever grow, across restarts too.
 *
 * Segments `wal-<first seq>.log` are the earlier format (no magic, no header checksum): still
 * replayed, up to their first bad record, and never appended to.
 */

interface Segment {
  path: string;
  first: number;
  /** Last seq written to it (first - 1 while empty). */
  last: number;
}

export interface WalOptions {
  dir: string;
  /** The data directory's id, part of each new segment's name. */
  id?: string;
  /** A segment is closed and a new one started past this size. */
  segmentBytes: number;
  /** Records up to this seq were inserted already; replay skips them and they may be removed. */
  appliedSeq: number;
  log?: (message: string) => void;
}

interface Waiter {
  resolve: (seq: number) => void;
  reject: (err: unknown) => void;
  seq: number;
  onDurable: (seq: number) => void;
}

export class WriteAheadLog {
  private segments: Segment[] = [];
  private fh: FileHandle | undefined;
  private size = 0;
  private pending: Buffer[] = [];
  private waiters: Waiter[] = [];
  private flushing: Promise<void> | undefined;
  private broken: Error | undefined;
  private nextSeq = 1;

  private constructor(private readonly opts: WalOptions) {}

  /** What replay skipped (damaged records, a torn tail). */
  readonly damage: WalDamage = { damagedRecords: 0, damagedBytes: 0, tornBytes: 0 };

  /** Opens the log, returning it and every record not yet applied, in order. */
  static async open(opts: WalOptions): Promise<{ wal: WriteAheadLog; records: WalRecord[] }> {
    await mkdir(opts.dir, { recursive: true });
    const wal = new WriteAheadLog(opts);
    const records = await wal.replay();
    wal.nextSeq = Math.max(wal.nextSeq, opts.appliedSeq + 1);
    await wal.startSegment();
    return { wal, records };
  }

  private async replay(): Promise<WalRecord[]> {
    const names = (await readdir(this.opts.dir))
      .filter((n) => SEGMENT.test(n) || LEGACY_SEGMENT.test(n))
      .sort();
    const out: WalRecord[] = [];
    for (const [i, name] of names.entries()) {
      const path = join(this.opts.dir, name);
      const first = Number(name.slice(4, 20));
      const data = await readFile(path);
      const newest = i === names.length - 1;
      const records = SEGMENT.test(name)
        ? await this.readSegment(path, name, data, newest)
        : this.readLegacySegment(name, data);
      let last = first - 1;
      for (const r of records) {
        last = Math.max(last, r.seq);
        if (r.seq > this.opts.appliedSeq) out.push(r);
      }
      this.nextSeq = Math.max(this.nextSeq, last + 1);
      this.segments.push({ path, first, last });
    }
    return out;
  }

  private async readSegment(
    path: string,
    name: string,
    data: Buffer,
    newest: boolean,
  ): Promise<WalRecord[]> {
    const { records, damage, validBytes } = parseSegment(data, newest);
    if (damage.damagedRecords > 0) {
      this.opts.log?.(
        `wal: ${name}: ${damage.damagedRecords} damaged record(s) skipped (${damage.damagedBytes} bytes), ${records.length} intact record(s) kept`,
      );
    }
    if (damage.tornBytes > 0) {
      this.opts.log?.(`wal: ${name}: torn tail of ${damage.tornBytes} bytes cut off`);
      // Appends may resume in this file: they must not follow bytes that read as a record.
      const fh = await open(path, 'r+');
      try {
        await fh.truncate(validBytes);
      } finally {
        await fh.close();
      }
    }
    this.damage.damagedRecords += damage.damagedRecords;
    this.damage.damagedBytes += damage.damagedBytes;
    this.damage.tornBytes += damage.tornBytes;
    return records;
  }

  private readLegacySegment(name: string, data: Buffer): WalRecord[] {
    const { records, validBytes } = parseLegacySegment(data);
    if (validBytes < data.length) {
      this.opts.log?.(
        `wal: ${name} (earlier format): unreadable from byte ${validBytes}, ${data.length - validBytes} bytes skipped`,
      );
      this.damage.damagedRecords++;
      this.damage.damagedBytes += data.length - validBytes;
    }
    return records;
  }

  /** The payload of a record still in the log (for the dead-letter file), or undefined. */
  async read(seq: number): Promise<Buffer | undefined> {
    const seg = [...this.segments].reverse().find((s) => s.first <= seq);
    if (!seg) return undefined;
    const data = await readFile(seg.path);
    const name = seg.path.slice(seg.path.lastIndexOf('/') + 1);
    const records = LEGACY_SEGMENT.test(name)
      ? parseLegacySegment(data).records
      : parseSegment(data, false).records;
    return records.find((r) => r.seq === seq)?.payload;
  }

  private async startSegment(): Promise<void> {
    const first = this.nextSeq;
    const id = this.opts.id ?? '0000000000000000';
    const path = join(this.opts.dir, `wal-${String(first).padStart(16, '0')}-${id}.log`);
    const fh = await open(path, 'a');
    const old = this.fh;
    this.fh = fh;
    this.size = (await fh.stat()).size;
    // An empty segment left by the previous run may have the same name: keep one entry.
    this.segments = this.segments.filter((s) => s.path !== path);
    this.segments.push({ path, first, last: first - 1 });
    await old?.close();
    // The new file's directory entry must survive a crash too.
    const dir = await open(this.opts.dir, 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  }

  /**
   * Appends a record. `onDurable` runs once it is fsynced, synchronously and in seq order
   * (so the write queue sees requests in log order); the promise then resolves with the seq.
   */
  append(payload: Buffer, onDurable: (seq: number) => void): Promise<number> {
    const seq = this.nextSeq++;
    this.pending.push(...frameRecord(seq, payload));
    return new Promise<number>((resolve, reject) => {
      this.waiters.push({ resolve, reject, seq, onDurable });
      this.flushing ??= this.flush();
    });
  }

  private async flush(): Promise<void> {
    try {
      while (this.waiters.length > 0) await this.flushOnce();
    } finally {
      // Cleared before the woken callers run, so their next append starts a new flush.
      this.flushing = undefined;
    }
  }

  private async flushOnce(): Promise<void> {
    const bufs = this.pending;
    const waiters = this.waiters;
    this.pending = [];
    this.waiters = [];
    const fh = this.fh;
    const bytes = bufs.reduce((n, b) => n + b.length, 0);
    try {
      if (!fh) throw new Error('write-ahead log is closed');
      // A failed write that could not be cut off then: try again (a full disk may have room).
      if (this.broken) await fh.truncate(this.size);
      this.broken = undefined;
      await writeAll(fh, bufs);
      await fh.datasync();
    } catch (err) {
      await this.recover(fh);
      for (const w of waiters) w.reject(err);
      return;
    }
    this.size += bytes;
    const seg = this.segments[this.segments.length - 1];
    if (seg) seg.last = Math.max(seg.last, waiters[waiters.length - 1]?.seq ?? seg.last);
    for (const w of waiters) w.onDurable(w.seq);
    for (const w of waiters) w.resolve(w.seq);
    if (this.size >= this.opts.segmentBytes) {
      // No room for a new file (a full disk): the current segment grows until there is.
      await this.startSegment().catch((err: unknown) => {
        this.opts.log?.(
          `wal: could not start a new segment, the current one grows: ${String(err)}`,
        );
      });
    }
  }

  /**
   * After a failed write, cut the partial record off so later records stay readable. If even
   * that fails, the next flush tries again before it writes anything.
   */
  private async recover(fh: FileHandle | undefined): Promise<void> {
    try {
      await fh?.truncate(this.size);
    } catch (err) {
      this.broken = new Error(`write-ahead log unusable: ${String(err)}`);
    }
  }

  /** Removes segments whose records are all applied (all but the one being written). */
  async release(appliedSeq: number): Promise<void> {
    while (this.segments.length > 1) {
      const seg = this.segments[0];
      if (!seg || seg.last > appliedSeq) break;
      this.segments.shift();
      await rm(seg.path, { force: true });
    }
  }

  /** Waits for the appends in flight, then closes the file. */
  async close(): Promise<void> {
    await this.flushing;
    const fh = this.fh;
    this.fh = undefined;
    await fh?.close();
  }
}

async function writeAll(fh: FileHandle, bufs: Buffer[]): Promise<void> {
  // writev may write less than asked (and takes at most IOV_MAX buffers): loop until done.
  let rest = bufs;
  while (rest.length > 0) {
    const chunk = rest.slice(0, 512);
    const want = chunk.reduce((n, b) => n + b.length, 0);
    const { bytesWritten } = await fh.writev(chunk);
    if (bytesWritten === want) {
      rest = rest.slice(512);
      continue;
    }
    let skip = bytesWritten;
    const left: Buffer[] = [];
    for (const b of chunk) {
      if (skip >= b.length) skip -= b.length;
      else {
        left.push(skip > 0 ? b.subarray(skip) : b);
        skip = 0;
      }
    }
    rest = [...left, ...rest.slice(512)];
  }
}
