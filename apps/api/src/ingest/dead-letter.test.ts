import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DeadLetters, isPermanent } from './dead-letter';
import { parseSegment } from './wal';

describe('isPermanent', () => {
  it('retries the engine state and gives up on the data', () => {
    // Too many partitions shares TOO_MANY_PARTS' code (252) but can never succeed as is.
    expect(
      isPermanent(
        new Error(
          'Code: 252. DB::Exception: Too many partitions for single INSERT block (more than 100)',
        ),
      ),
    ).toBe(true);
    expect(
      isPermanent(
        new Error('Code: 252. DB::Exception: Too many parts (300). Merges are processing'),
      ),
    ).toBe(false);
    expect(
      isPermanent(new Error('Code: 60. DB::Exception: Table default.otel_traces does not exist')),
    ).toBe(false);
    expect(isPermanent(Object.assign(new Error('memory'), { code: '241' }))).toBe(false);
    expect(isPermanent(new Error('Code: 53. DB::Exception: Type mismatch'))).toBe(true);
    // No ClickHouse code: the server unreachable, a scratch file not written.
    expect(
      isPermanent(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })),
    ).toBe(false);
    expect(isPermanent(new Error('ENOSPC: no space left on device'))).toBe(false);
    // The disk's fault whatever code the engine gives it: retried, never quarantined.
    for (const message of [
      'Code: 1001. DB::Exception: std::exception. Code: 1001, type: std::__1::system_error, e.what() = No space left on device',
      'Code: 75. DB::ErrnoException: Cannot write to file /data/x.bin, errno: 28, strerror: No space left on device. (CANNOT_WRITE_TO_FILE_DESCRIPTOR)',
      'Code: 74. DB::ErrnoException: Cannot read from file, errno: 5, strerror: Input/output error. (CANNOT_READ_FROM_FILE_DESCRIPTOR)',
    ])
      expect(isPermanent(new Error(message)), message).toBe(false);
    expect(isPermanent(Object.assign(new Error('write failed'), { code: 'EIO' }))).toBe(false);
    // A truncated input is still the data's fault when the disk is not to blame.
    expect(isPermanent(new Error('Code: 33. DB::Exception: Cannot read all data'))).toBe(true);
  });
});

describe('DeadLetters', () => {
  it('keeps the bytes in the log framing and counts across reopening', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tailscope-dead-'));
    try {
      const d = await DeadLetters.open(dir);
      await d.add(7, 150, 'too many partitions', Buffer.from('request bytes'));
      await d.add(9, 3, 'other', undefined);
      const again = await DeadLetters.open(dir);
      expect(again.stats).toEqual({ batches: 2, spans: 153, lastReason: 'other' });
      const kept = parseSegment(readFileSync(join(dir, 'dead-letter.log'))).records;
      expect(kept.map((r) => [r.seq, r.payload.toString()])).toEqual([[7, 'request bytes']]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
