import {
  appendFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WriteAheadLog, parseSegment } from './wal';
import { BatchLog, parseBatchLog } from './batch-log';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tailscope-wal-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const open = (appliedSeq = 0, segmentBytes = 1 << 20) =>
  WriteAheadLog.open({ dir, segmentBytes, appliedSeq });
const payload = (i: number) => Buffer.from(`record ${i} `.repeat(1 + (i % 5)));

describe('WriteAheadLog', () => {
  it('numbers concurrent appends in order, reports them durable in order, and replays them', async () => {
    const { wal, records } = await open();
    expect(records).toEqual([]);
    const order: number[] = [];
    const seqs = await Promise.all(
      Array.from({ length: 50 }, (_, i) => wal.append(payload(i), (seq) => order.push(seq))),
    );
    expect(seqs).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(order).toEqual(seqs);
    await wal.close();
    const again = await open(20);
    expect(again.records.map((r) => r.seq)).toEqual(seqs.slice(20));
    expect(again.records[0]?.payload.equals(payload(20))).toBe(true);
    // Numbering goes on after a restart.
    expect(await again.wal.append(payload(99), () => undefined)).toBe(51);
    await again.wal.close();
  });

  it('drops a torn tail and keeps later appends readable', async () => {
    const { wal } = await open();
    for (let i = 0; i < 5; i++) await wal.append(payload(i), () => undefined);
    await wal.close();
    const [segment] = readdirSync(dir);
    const path = join(dir, segment ?? '');
    const good = readFileSync(path).length;
    appendFileSync(path, Buffer.from([42, 0, 0, 0, 1, 2, 3]));
    const second = await open();
    expect(second.records).toHaveLength(5);
    expect(readFileSync(path).length).toBe(good);
    await second.wal.append(payload(5), () => undefined);
    await second.wal.close();
    const third = await open();
    expect(third.records.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    await third.wal.close();
  });

  it('loses exactly the damaged record whatever byte of it is flipped', async () => {
    const { wal } = await open();
    for (let i = 0; i < 4; i++) await wal.append(payload(i), () => undefined);
    await wal.close();
    const bytes = readFileSync(join(dir, readdirSync(dir)[0] ?? ''));
    expect(parseSegment(bytes).records.map((r) => r.seq)).toEqual([1, 2, 3, 4]);
    // Where each record starts: 24-byte header, then its payload.
    const starts: number[] = [];
    for (let p = 0, i = 0; i < 4; i++) {
      starts.push(p);
      p += 24 + payload(i).length;
    }
    starts.push(bytes.length);
    for (let at = 0; at < bytes.length; at++) {
      const copy = Buffer.from(bytes);
      copy[at] = (copy[at] ?? 0) ^ 0x5a;
      const hit = starts.findIndex((s, i) => at >= s && at < (starts[i + 1] ?? 0)) + 1;
      // Not the newest segment: a damaged last record is damage, not a torn tail.
      const parsed = parseSegment(copy, false);
      const kept = [1, 2, 3, 4].filter((seq) => seq !== hit);
      expect(
        parsed.records.map((r) => r.seq),
        `byte ${at}`,
      ).toEqual(kept);
      expect(parsed.damage.damagedRecords, `byte ${at}`).toBe(1);
      for (const r of parsed.records)
        expect(r.payload.equals(payload(r.seq - 1)), `byte ${at}`).toBe(true);
    }
  });

  it('loses only the torn record when the tail is cut anywhere', async () => {
    const { wal } = await open();
    for (let i = 0; i < 3; i++) await wal.append(payload(i), () => undefined);
    await wal.close();
    const bytes = readFileSync(join(dir, readdirSync(dir)[0] ?? ''));
    const ends = [0, 1, 2].map((i) =>
      [0, 1, 2].slice(0, i + 1).reduce((n, j) => n + 24 + payload(j).length, 0),
    );
    for (let cut = 0; cut <= bytes.length; cut++) {
      const parsed = parseSegment(bytes.subarray(0, cut));
      const whole = ends.filter((e) => e <= cut).length;
      expect(
        parsed.records.map((r) => r.seq),
        `cut at ${cut}`,
      ).toEqual([1, 2, 3].slice(0, whole));
      expect(parsed.damage.damagedRecords).toBe(0);
    }
  });

  it('replays past a damaged record and reports it, in a later segment too', async () => {
    const { wal } = await open();
    for (let i = 0; i < 5; i++) await wal.append(payload(i), () => undefined);
    await wal.close();
    const path = join(dir, readdirSync(dir)[0] ?? '');
    const bytes = readFileSync(path);
    const at = bytes.indexOf(payload(2)) + 1;
    bytes[at] = (bytes[at] ?? 0) ^ 0xff;
    writeFileSync(path, bytes);
    const again = await open();
    expect(again.records.map((r) => r.seq)).toEqual([1, 2, 4, 5]);
    expect(again.wal.damage).toMatchObject({ damagedRecords: 1, tornBytes: 0 });
    await again.wal.append(payload(9), () => undefined);
    await again.wal.close();
    const third = await open();
    expect(third.records.map((r) => r.seq)).toEqual([1, 2, 4, 5, 6]);
    await third.wal.close();
  });

  it('rolls segments and removes those whose records are all applied', async () => {
    const { wal } = await open(0, 200);
    for (let i = 0; i < 30; i++) await wal.append(payload(i), () => undefined);
    const before = readdirSync(dir).length;
    expect(before).toBeGreaterThan(3);
    await wal.release(20);
    const after = await (async () => {
      await wal.close();
      return open(20, 200);
    })();
    expect(readdirSync(dir).length).toBeLessThan(before);
    expect(after.records.map((r) => r.seq)).toEqual(Array.from({ length: 10 }, (_, i) => 21 + i));
    await after.wal.close();
  });
});

describe('BatchLog', () => {
  it('reads applied and pending batches from its lines', () => {
    expect(parseBatchLog('')).toEqual({ applied: 0, pending: undefined });
    expect(parseBatchLog('B 1 4\nC 4\nB 5 9\n')).toEqual({
      applied: 4,
      pending: { first: 5, last: 9 },
    });
    // A line cut short by a crash (no newline) does not count.
    expect(parseBatchLog('B 1 4\nC 4\nB 5 9\nC 9\nB 10 1')).toEqual({
      applied: 9,
      pending: undefined,
    });
  });

  it('keeps its id and state across restarts and compacts itself', async () => {
    const log = await BatchLog.open(dir, 1000);
    const id = log.state.id;
    expect(log.token(3, 7)).toBe(`${id}:3-7`);
    for (let i = 1; i <= 200; i++) {
      await log.begin(i, i);
      await log.commit(i);
    }
    await log.begin(201, 210);
    await log.close();
    expect(readFileSync(join(dir, 'batches.log')).length).toBeLessThan(1100);
    const again = await BatchLog.open(dir);
    expect(again.state).toEqual({ id, applied: 200, pending: { first: 201, last: 210 } });
    await again.close();
  });
});
