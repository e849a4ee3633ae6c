import { mkdir, open, readdir, readFile, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';

/**
 * The write-ahead log: a 200 from the OTLP receivers means the request's bytes are here and
 * fsynced. Appends are grouped: while one write+fdatasync is in flight, every request that
 * arrives queues for the next one, so one fsync acknowledges many requests.
 *
 * Layout: segment files `wal-<first seq>.log`, each a run of records
 *   u32 payload length | u32 crc32(seq bytes + payload) | u64 seq | payload
 * A torn record at the tail (a crash in the middle of a write) fails its length or checksum
 * and ends the replay of that segment. Sequence numbers only ever grow, across restarts too.
 */

const HEADER = 16;
const MAX_RECORD = 2 ** 31 - 1;

export interface WalRecord {
  seq: number;
  payload: Buffer;
}

interface Segment {
  path: string;
  first: number;
  /** Last seq written to it (first - 1 while empty). */
  last: number;
}

export interface WalOptions {
  dir: string;
  /** A segment is closed and a new one started past this size. */
  segmentBytes: number;
  /** Records up to this seq were inserted already; replay skips them and they may be removed. */
  appliedSeq: number;
  log?: (message: string) => void;
}

function segmentName(first: number): string {
  return `wal-${String(first).padStart(16, '0')}.log`;
}

function header(seq: number, payload: Buffer): Buffer {
  const h = Buffer.allocUnsafe(HEADER);
  h.writeUInt32LE(payload.length, 0);
  h.writeUInt32LE(seq % 2 ** 32, 8);
  h.writeUInt32LE(Math.floor(seq / 2 ** 32), 12);
  h.writeUInt32LE(crc32(payload, crc32(h.subarray(8, 16))), 4);
  return h;
}

/** Reads the valid records of one segment; `validBytes` is where a torn tail starts. */
export function parseSegment(data: Buffer): { records: WalRecord[]; validBytes: number } {
  const records: WalRecord[] = [];
  let p = 0;
  while (p + HEADER <= data.length) {
    const len = data.readUInt32LE(p);
    const sum = data.readUInt32LE(p + 4);
    if (len > MAX_RECORD || p + HEADER + len > data.length) break;
    const payload = data.subarray(p + HEADER, p + HEADER + len);
    if (crc32(payload, crc32(data.subarray(p + 8, p + 16))) !== sum) break;
    const seq = data.readUInt32LE(p + 8) + data.readUInt32LE(p + 12) * 2 ** 32;
    records.push({ seq, payload });
    p += HEADER + len;
  }
  return { records, validBytes: p };
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
    const names = (await readdir(this.opts.dir)).filter((n) => /^wal-\d{16}\.log$/.test(n)).sort();
    const out: WalRecord[] = [];
    for (const [i, name] of names.entries()) {
      const path = join(this.opts.dir, name);
      const first = Number(name.slice(4, 20));
      const data = await readFile(path);
      const { records, validBytes } = parseSegment(data);
      if (validBytes < data.length) {
        // Only the newest segment can have a torn tail from a crash mid-write; it was never
        // acknowledged. Anywhere else it is damage, and the log says so.
        const where = i === names.length - 1 ? 'torn tail' : 'damaged record';
        this.opts.log?.(
          `wal: ${name}: ${where} at byte ${validBytes}, ${data.length - validBytes} bytes dropped`,
        );
        // Cut it off: records appended after garbage could not be read back.
        const fh = await open(path, 'r+');
        try {
          await fh.truncate(validBytes);
        } finally {
          await fh.close();
        }
      }
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

  private async startSegment(): Promise<void> {
    const first = this.nextSeq;
    const path = join(this.opts.dir, segmentName(first));
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
    if (this.broken) return Promise.reject(this.broken);
    const seq = this.nextSeq++;
    this.pending.push(header(seq, payload), payload);
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
      if (this.broken) throw this.broken;
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
    if (this.size >= this.opts.segmentBytes) await this.startSegment();
  }

  /** After a failed write, cut the partial record off so later records stay readable. */
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
