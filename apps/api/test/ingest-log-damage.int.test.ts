import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonToProtobuf } from '../src/ingest/decode-json';
import { BatchLog } from '../src/ingest/batch-log';
import { WriteAheadLog } from '../src/ingest/wal';
import type { Running } from '../src/server/serve';
import { otlpJson } from '../src/testing/otlp-fixtures';
import {
  JSON_TYPE,
  T0,
  countSpans,
  postOtlp,
  startServer,
  stats,
  timedSpan,
} from './ingest-support';

/**
 * Issue #15: one flipped byte of the write-ahead log lost the damaged record and everything
 * after it; a lost or garbled batch log re-inserted already-stored spans (~20% duplicates).
 * Each case: records the store has not seen are written to the log as a crash leaves them, the
 * log is damaged, and the real server replays it.
 */

const dirs: string[] = [];
let running: Running | undefined;

afterEach(async () => {
  await running?.close();
  running = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const traceOf = (i: number) => (0x10 + i).toString(16).repeat(16);
const SPANS = 10;

function request(i: number): Buffer {
  const spans = Array.from({ length: SPANS }, (_, j) =>
    timedSpan(traceOf(i), j, T0 + BigInt(j), T0 + BigInt(j) + 100n),
  );
  return jsonToProtobuf(Buffer.from(otlpJson(spans)));
}

/** A data directory whose tables exist and whose log holds `n` unapplied records. */
async function logWithRecords(n: number): Promise<{ dir: string; segment: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'tailscope-damage-'));
  dirs.push(dir);
  await (await startServer(dir)).close();
  const walDir = join(dir, 'ingest', 'wal');
  const batchLog = await BatchLog.open(walDir);
  const { id, applied } = batchLog.state;
  await batchLog.close();
  // A fresh segment of its own, so the byte offsets below are this test's records only.
  for (const name of readdirSync(walDir)) if (name.startsWith('wal-')) rmSync(join(walDir, name));
  const { wal } = await WriteAheadLog.open({
    dir: walDir,
    id,
    segmentBytes: 1 << 30,
    appliedSeq: applied,
  });
  for (let i = 0; i < n; i++) await wal.append(request(i), () => undefined);
  await wal.close();
  const segment = readdirSync(walDir).find((name) => name.startsWith('wal-')) ?? '';
  return { dir, segment: join(walDir, segment) };
}

/** Byte ranges [start, end) of the records in a segment (24-byte header + payload each). */
function recordRanges(n: number): [number, number][] {
  const out: [number, number][] = [];
  let p = 0;
  for (let i = 0; i < n; i++) {
    const end = p + 24 + request(i).length;
    out.push([p, end]);
    p = end;
  }
  return out;
}

async function storedTraces(n: number): Promise<number[]> {
  if (!running) throw new Error('not running');
  await running.ingest.flush();
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(await countSpans(running, traceOf(i)));
  return out;
}

describe('a damaged write-ahead log', () => {
  // Positions inside record 3 of 5: its magic, length, seq, payload checksum, header
  // checksum, and its payload's first, middle and last bytes.
  const offsets = [0, 5, 9, 17, 21, 24, 100, -1];
  it.each(offsets)('loses exactly the record whose byte %i is flipped', async (offset) => {
    const { dir, segment } = await logWithRecords(5);
    const [start, end] = recordRanges(5)[2] ?? [0, 0];
    const bytes = readFileSync(segment);
    const at = offset < 0 ? end - 1 : start + offset;
    bytes[at] = (bytes[at] ?? 0) ^ 0x41;
    writeFileSync(segment, bytes);
    running = await startServer(dir);
    expect(await storedTraces(5)).toEqual([SPANS, SPANS, 0, SPANS, SPANS]);
    expect((await stats(running)).walDamage.damagedRecords).toBe(1);
  });

  it('loses only the torn record when the tail is cut short', async () => {
    const { dir, segment } = await logWithRecords(4);
    const [start, end] = recordRanges(4)[3] ?? [0, 0];
    writeFileSync(
      segment,
      readFileSync(segment).subarray(0, start + Math.floor((end - start) / 2)),
    );
    running = await startServer(dir);
    expect(await storedTraces(4)).toEqual([SPANS, SPANS, SPANS, 0]);
    const s = await stats(running);
    expect(s.walDamage.damagedRecords).toBe(0);
    expect(s.walDamage.tornBytes).toBeGreaterThan(0);
    // Appends after the cut are readable on the next start.
    expect(
      (await postOtlp(running, otlpJson([timedSpan(traceOf(9), 0, T0, T0 + 5n)]), JSON_TYPE))
        .status,
    ).toBe(200);
    await running.close();
    running = await startServer(dir);
    expect(await countSpans(running, traceOf(9))).toBe(1);
  });
});

describe('a lost or garbled batch log', () => {
  it.each([
    [
      'deleted',
      (walDir: string) => {
        rmSync(join(walDir, 'batches.log'));
      },
    ],
    [
      'garbled',
      (walDir: string) => {
        writeFileSync(join(walDir, 'batches.log'), 'C \u0000\nB x 2\n\u0000\u0000');
      },
    ],
    [
      'deleted with the id file',
      (walDir: string) => {
        rmSync(join(walDir, 'batches.log'));
        rmSync(join(walDir, 'id'));
      },
    ],
  ])('duplicates nothing when %s', async (_label, damage) => {
    const dir = mkdtempSync(join(tmpdir(), 'tailscope-batchlog-'));
    dirs.push(dir);
    // Several batches: a short batching window and requests posted one after the other.
    running = await startServer(dir, {}, { maxDelayMs: 50, minBatchSpans: 1 });
    for (let i = 0; i < 6; i++) expect((await postOtlp(running, request(i))).status).toBe(200);
    expect(await storedTraces(6)).toEqual(Array(6).fill(SPANS));
    await running.close();
    damage(join(dir, 'ingest', 'wal'));
    running = await startServer(dir);
    expect(await storedTraces(6)).toEqual(Array(6).fill(SPANS));
    expect(await countSpans(running)).toBe(6 * SPANS);
  });
});
