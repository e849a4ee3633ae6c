import { crc32 } from 'node:zlib';

/**
 * The write-ahead log's on-disk format (wal.ts describes it): framing records, and reading
 * segments back with damage contained. The dead-letter file uses the same framing.
 */

const HEADER = 24;
const MAGIC = 0x5457_5354; // "TSWT" little-endian
const MAGIC_BYTES = Buffer.from([0x54, 0x53, 0x57, 0x54]);
const LEGACY_HEADER = 16;
const MAX_RECORD = 2 ** 31 - 1;
export const SEGMENT = /^wal-(\d{16})-([0-9a-f]{16})\.log$/;
export const LEGACY_SEGMENT = /^wal-(\d{16})\.log$/;

export interface WalRecord {
  seq: number;
  payload: Buffer;
}

/** What replay had to leave out. */
export interface WalDamage {
  /** Records lost to damage (checksum mismatch), each skipped alone. */
  damagedRecords: number;
  damagedBytes: number;
  /** Bytes of a record cut short by a crash at the end of the newest segment. */
  tornBytes: number;
}

/** The data directory id found in segment names (so a lost `id` file can be recovered). */
export function idFromSegmentNames(names: readonly string[]): string | undefined {
  for (const n of names) {
    const m = SEGMENT.exec(n);
    if (m) return m[2];
  }
  return undefined;
}

function header(seq: number, payload: Buffer): Buffer {
  const h = Buffer.allocUnsafe(HEADER);
  h.writeUInt32LE(MAGIC, 0);
  h.writeUInt32LE(payload.length, 4);
  h.writeUInt32LE(seq % 2 ** 32, 8);
  h.writeUInt32LE(Math.floor(seq / 2 ** 32), 12);
  h.writeUInt32LE(crc32(payload), 16);
  h.writeUInt32LE(crc32(h.subarray(0, 20)), 20);
  return h;
}

function headerValid(data: Buffer, p: number): boolean {
  return (
    p + HEADER <= data.length &&
    data.readUInt32LE(p) === MAGIC &&
    crc32(data.subarray(p, p + 20)) === data.readUInt32LE(p + 20)
  );
}

/** The next intact header after `from`, or -1. */
function nextHeader(data: Buffer, from: number): number {
  let q = data.indexOf(MAGIC_BYTES, from);
  while (q >= 0 && !headerValid(data, q)) q = data.indexOf(MAGIC_BYTES, q + 1);
  return q;
}

export interface ParsedSegment {
  records: WalRecord[];
  damage: WalDamage;
  /** Where a torn tail starts (the segment's length when there is none). */
  validBytes: number;
}

/**
 * Reads the intact records of one segment. `newest`: trailing bytes that hold no intact record
 * are a torn tail rather than damage.
 */
export function parseSegment(data: Buffer, newest = true): ParsedSegment {
  const records: WalRecord[] = [];
  const damage: WalDamage = { damagedRecords: 0, damagedBytes: 0, tornBytes: 0 };
  let p = 0;
  let validBytes = data.length;
  while (p < data.length) {
    if (!headerValid(data, p)) {
      const q = nextHeader(data, p + 1);
      if (q < 0) {
        if (newest) {
          damage.tornBytes = data.length - p;
          validBytes = p;
        } else {
          damage.damagedRecords++;
          damage.damagedBytes += data.length - p;
        }
        break;
      }
      damage.damagedRecords++;
      damage.damagedBytes += q - p;
      p = q;
      continue;
    }
    const len = data.readUInt32LE(p + 4);
    const end = p + HEADER + len;
    if (len > MAX_RECORD || end > data.length) {
      // The header is intact but its payload is not all there: cut short by a crash.
      if (newest) {
        damage.tornBytes = data.length - p;
        validBytes = p;
      } else {
        damage.damagedRecords++;
        damage.damagedBytes += data.length - p;
      }
      break;
    }
    const payload = data.subarray(p + HEADER, end);
    if (crc32(payload) === data.readUInt32LE(p + 16)) {
      const seq = data.readUInt32LE(p + 8) + data.readUInt32LE(p + 12) * 2 ** 32;
      records.push({ seq, payload });
    } else {
      damage.damagedRecords++;
      damage.damagedBytes += end - p;
    }
    p = end;
  }
  return { records, damage, validBytes };
}

/** The earlier format: u32 length | u32 crc32(seq bytes + payload) | u64 seq | payload. */
export function parseLegacySegment(data: Buffer): { records: WalRecord[]; validBytes: number } {
  const records: WalRecord[] = [];
  let p = 0;
  while (p + LEGACY_HEADER <= data.length) {
    const len = data.readUInt32LE(p);
    const sum = data.readUInt32LE(p + 4);
    if (len > MAX_RECORD || p + LEGACY_HEADER + len > data.length) break;
    const payload = data.subarray(p + LEGACY_HEADER, p + LEGACY_HEADER + len);
    if (crc32(payload, crc32(data.subarray(p + 8, p + 16))) !== sum) break;
    const seq = data.readUInt32LE(p + 8) + data.readUInt32LE(p + 12) * 2 ** 32;
    records.push({ seq, payload });
    p += LEGACY_HEADER + len;
  }
  return { records, validBytes: p };
}

/** Frames a record as the log does (the dead-letter file uses the same framing). */
export function frameRecord(seq: number, payload: Buffer): Buffer[] {
  return [header(seq, payload), payload];
}
