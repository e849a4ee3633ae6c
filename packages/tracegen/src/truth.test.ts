import { describe, expect, it } from 'vitest';
import {
  CallEffect,
  createGenerator,
  encodeOtlpProtobuf,
  presetSpec,
  type PlantedCalls,
  type TraceGenerator,
} from './index';
import { decodeProtobuf } from './otlp-reference';

/** Per call: host name, start and end in ms after the run's start (start = epoch 0: exact). */
function callTable(gen: TraceGenerator, planted: PlantedCalls) {
  const { calls } = planted;
  const rows: { host: string; start: number; end: number; effects: number; background: string }[] =
    [];
  for (let f = 0; f + 1 < calls.fanoutOffsets.length; f++)
    for (let c = calls.fanoutOffsets[f] ?? 0; c < (calls.fanoutOffsets[f + 1] ?? 0); c++) {
      const start =
        (calls.fanoutStartMs[f] ?? 0) - gen.truth.start.epochMs + (calls.startMs[c] ?? 0);
      rows.push({
        host: calls.hosts[calls.host[c] ?? 0] ?? '',
        start,
        end: start + (calls.durationMs[c] ?? 0),
        effects: planted.effects[c] ?? 0,
        background: calls.backgrounds[calls.background[c] ?? 0] ?? '',
      });
    }
  return rows;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

describe('paper-fanout', () => {
  it('1 call in 100 takes 1 s, independently (binomial bound)', () => {
    const gen = createGenerator(presetSpec('paper-fanout'), { requests: 400, seed: 11 });
    const { calls, effects } = gen.leafCalls();
    const n = calls.durationMs.length;
    expect(n).toBe(40_000);
    let slow = 0;
    let flagged = 0;
    for (let i = 0; i < n; i++) {
      if ((calls.durationMs[i] ?? 0) >= 999) slow++;
      if ((effects[i] ?? 0) & CallEffect.tail) flagged++;
    }
    expect(flagged).toBe(slow);
    // p = 0.01, sd = sqrt(p(1-p)/n) = 0.0005; allow 5 sd.
    expect(Math.abs(slow / n - 0.01)).toBeLessThan(0.0025);
    // A request is slow when any of its 100 calls is: 1 - 0.99^100 = 0.634, sd 0.024; allow 5 sd.
    let slowRequests = 0;
    for (let f = 0; f < 400; f++) {
      let any = false;
      for (let c = calls.fanoutOffsets[f] ?? 0; c < (calls.fanoutOffsets[f + 1] ?? 0); c++)
        any ||= (calls.durationMs[c] ?? 0) >= 999;
      if (any) slowRequests++;
    }
    expect(Math.abs(slowRequests / 400 - (1 - 0.99 ** 100))).toBeLessThan(0.12);
    expect(gen.truth.leafLatency.survival(500)).toBeCloseTo(0.01, 6);
  });

  it('with correlation "request" the slow component is shared by all calls of a request', () => {
    const gen = createGenerator(presetSpec('paper-fanout', { width: 20, correlation: 'request' }), {
      requests: 2000,
      seed: 4,
    });
    const { calls } = gen.leafCalls();
    let slowRequests = 0;
    for (let f = 0; f < 2000; f++) {
      const d = Array.from(
        calls.durationMs.subarray(calls.fanoutOffsets[f], calls.fanoutOffsets[f + 1]),
      );
      const slow = d.filter((x) => x >= 999).length;
      expect(slow === 0 || slow === 20).toBe(true);
      if (slow) slowRequests++;
    }
    // p = 0.01 per request, n = 2000: sd 0.0022; allow 5 sd.
    expect(Math.abs(slowRequests / 2000 - 0.01)).toBeLessThan(0.011);
  });

  it('the columnar calls say what the spans say', () => {
    const gen = createGenerator(presetSpec('paper-fanout', { width: 10 }), {
      requests: 30,
      seed: 2,
    });
    const spans = [...gen.batches()].flatMap((b) => decodeProtobuf(encodeOtlpProtobuf(b)));
    const fromSpans = new Map(
      spans
        .filter((s) => s.kind === 3)
        .map((s) => [
          `${s.traceId} ${s.attributes['server.address'] ?? ''}`,
          Number(BigInt(s.endTimeUnixNano) - BigInt(s.startTimeUnixNano)) / 1e6,
        ]),
    );
    const { calls } = gen.leafCalls();
    const fromCalls = new Map<string, number>();
    for (let f = 0; f < 30; f++)
      for (let c = calls.fanoutOffsets[f] ?? 0; c < (calls.fanoutOffsets[f + 1] ?? 0); c++)
        fromCalls.set(
          `${calls.traceIds[f] ?? ''} ${calls.hosts[calls.host[c] ?? 0] ?? ''}`,
          calls.durationMs[c] ?? NaN,
        );
    expect(fromCalls.size).toBe(300);
    expect(fromCalls).toEqual(fromSpans);
  });
});

describe('sick-host', () => {
  const gen = createGenerator(presetSpec('sick-host'), { requests: 3000, seed: 8, start: 0 });
  const rows = callTable(gen, gen.leafCalls());
  const [episode] = gen.truth.episodes;
  if (!episode) throw new Error('no episode');

  it('plants storage-07 from 30% to 60% of the run', () => {
    expect(gen.truth.causes).toEqual([{ dimension: 'host', value: 'storage-07', effect: 0 }]);
    expect(episode.startMs).toBeCloseTo(0.3 * gen.truth.durationMs, 6);
    expect(episode.endMs).toBeCloseTo(0.6 * gen.truth.durationMs, 6);
  });

  it("the sick host's calls are slower during its episode, and only then and only there", () => {
    const during = (r: (typeof rows)[number]) =>
      r.start >= episode.startMs && r.start < episode.endMs;
    const sick = rows.filter((r) => r.host === 'storage-07');
    const sickIn = sick.filter(during).map((r) => r.end - r.start);
    const sickOut = sick.filter((r) => !during(r)).map((r) => r.end - r.start);
    const othersIn = rows
      .filter((r) => r.host !== 'storage-07' && during(r))
      .map((r) => r.end - r.start);
    // Healthy median 2 ms; sick 4 x 2 + ~15 = ~23 ms.
    expect(median(sickIn)).toBeGreaterThan(15);
    expect(median(sickOut)).toBeLessThan(2.5);
    expect(median(othersIn)).toBeLessThan(2.5);
    for (const r of rows)
      expect(Boolean(r.effects & CallEffect.episode)).toBe(r.host === 'storage-07' && during(r));
    const law = gen.truth.callLatency('storage-07', (episode.startMs + episode.endMs) / 2);
    expect(Math.abs(median(sickIn) - law.quantile(0.5)) / law.quantile(0.5)).toBeLessThan(0.1);
    expect(gen.truth.callLatency('storage-07', 1).quantile(0.5)).toBeCloseTo(2, 6);
  });
});

describe('bobtail', () => {
  const gen = createGenerator(presetSpec('bobtail'), { requests: 2000, seed: 21 });
  const planted = gen.leafCalls();
  const rows = callTable(gen, planted);
  const modeOf = new Map(gen.truth.hosts.map((h) => [h.name, h.sharingMode]));

  it('contended hosts oversleep 10-30 ms on ~1.5% of calls; the others never do', () => {
    const contended = rows.filter((r) => modeOf.get(r.host) === 'contended');
    const others = rows.filter((r) => modeOf.get(r.host) !== 'contended');
    const long = (r: (typeof rows)[number]) => r.end - r.start > 8; // lognormal(1, 0.35) > 8: ~1e-9
    const p = contended.filter(long).length / contended.length;
    // ~8000 contended calls, p = 0.015: sd 0.0014; allow 5 sd.
    expect(Math.abs(p - 0.015)).toBeLessThan(0.007);
    expect(others.filter(long)).toHaveLength(0);
    for (const r of contended.filter(long)) expect(r.effects & CallEffect.oversleep).toBeTruthy();
    expect(gen.truth.causes).toEqual([{ dimension: 'mode', value: 'contended', effect: 0 }]);
    expect(gen.truth.notCauses.map((c) => c.value).sort()).toEqual(['dedicated', 'shared']);
    const law = gen.truth.callLatency(contended[0]?.host ?? '', 0);
    expect(law.survival(8)).toBeCloseTo(0.015, 3);
  });

  it('host modes in the spans match the truth, and zones are balanced across modes', () => {
    const spans = decodeProtobuf(encodeOtlpProtobuf(gen.batches().next().value ?? fail()));
    for (const s of spans.filter((x) => x.resource['service.name'] === 'cache'))
      expect(s.resource['host.sharing_mode']).toBe(modeOf.get(s.resource['host.name'] ?? ''));
    const counts = gen.truth.hosts
      .map((h) => h.sharingMode)
      .reduce<Record<string, number>>((acc, m) => ({ ...acc, [m]: (acc[m] ?? 0) + 1 }), {});
    expect(counts).toEqual({ contended: 6, shared: 9, dedicated: 15 });
    for (const zone of ['zone-a', 'zone-b', 'zone-c'])
      expect(
        gen.truth.hosts.filter((h) => h.zone === zone && h.sharingMode === 'contended'),
      ).toHaveLength(2);
    expect(gen.truth.decoys[0]?.balanced).toBe(true);
  });

  it('build.id is drawn per call, uniform over its values (chi-square bound)', () => {
    const spans = [...gen.batches()]
      .slice(0, 10)
      .flatMap((b) => decodeProtobuf(encodeOtlpProtobuf(b)));
    const counts = new Map<string, number>();
    for (const s of spans.filter((x) => x.kind === 2 && x.parentSpanId)) {
      const id = s.attributes['build.id'] ?? '';
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    const values = [...counts.values()];
    expect(values).toHaveLength(4);
    const total = values.reduce((a, b) => a + b, 0);
    const chi = values.reduce((s, v) => s + (v - total / 4) ** 2 / (total / 4), 0);
    expect(chi).toBeLessThan(16.27); // chi-square, 3 df, p = 0.001
  });
});

describe('background-compaction', () => {
  const gen = createGenerator(presetSpec('background-compaction'), {
    requests: 3000,
    seed: 5,
    start: 0,
  });
  const rows = callTable(gen, gen.leafCalls());
  const windows = gen.truth.backgroundWindows;
  const overlapping = (r: (typeof rows)[number], activity: string) =>
    windows.some(
      (w) => w.activity === activity && w.host === r.host && r.start < w.endMs && r.end > w.startMs,
    );

  it('a call overlaps a compaction window exactly when compaction slowed it; cron slows nothing', () => {
    let inCompaction = 0;
    const cronOnly: number[] = [];
    const compaction: number[] = [];
    for (const r of rows) {
      const c = overlapping(r, 'compaction');
      expect(Boolean(r.effects & CallEffect.background)).toBe(c);
      if (c) {
        inCompaction++;
        compaction.push(r.end - r.start);
        expect(r.background).toBe('compaction');
      } else if (overlapping(r, 'cron')) {
        cronOnly.push(r.end - r.start);
        expect(r.background).toBe('cron');
      } else expect(r.background).toBe('none');
    }
    // 400 ms of every ~8 s: ~5% of calls.
    expect(inCompaction / rows.length).toBeGreaterThan(0.02);
    expect(inCompaction / rows.length).toBeLessThan(0.1);
    expect(median(compaction)).toBeGreaterThan(30);
    expect(median(cronOnly)).toBeLessThan(2.5);
    expect(gen.truth.causes.map((c) => c.value)).toEqual(['compaction']);
    expect(gen.truth.notCauses).toContainEqual({ dimension: 'background', value: 'cron' });
  });

  it('emits one background span per window, on its host, after all', () => {
    const spans = [...gen.batches()].flatMap((b) => decodeProtobuf(encodeOtlpProtobuf(b)));
    const bg = spans.filter((s) => s.attributes['background.activity']);
    expect(bg).toHaveLength(windows.length);
    const key = (host: string, activity: string, startNs: bigint) =>
      `${host} ${activity} ${startNs}`;
    const fromSpans = new Set(
      bg.map((s) => key(s.resource['host.name'] ?? '', s.name, BigInt(s.startTimeUnixNano))),
    );
    for (const w of windows)
      expect(fromSpans.has(key(w.host, w.activity, BigInt(Math.round(w.startMs * 1e6))))).toBe(
        true,
      );
  });
});

describe('bigtable-multiget', () => {
  it('each request reads every shard once, from one of its 3 replicas', () => {
    const gen = createGenerator(presetSpec('bigtable-multiget', { hosts: 20 }), {
      requests: 50,
      seed: 6,
    });
    const { calls } = gen.leafCalls();
    expect(gen.truth.hosts).toHaveLength(60);
    for (let f = 0; f < 50; f++) {
      const shards = Array.from(
        calls.host.subarray(calls.fanoutOffsets[f], calls.fanoutOffsets[f + 1]),
        (h) => gen.truth.hosts[h]?.shard,
      );
      expect(shards.sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(
        Array.from({ length: 20 }, (_, i) => i),
      );
    }
    expect(new Set(Array.from(calls.host, (h) => gen.truth.hosts[h]?.replica))).toEqual(
      new Set([0, 1, 2]),
    );
  });
});

describe('service-tree', () => {
  it('fans out to 80..120 distinct leaves with SERVER spans straight under the root', () => {
    const gen = createGenerator(presetSpec('service-tree'), { requests: 200, seed: 1 });
    const { calls } = gen.leafCalls();
    const widths: number[] = [];
    for (let f = 0; f < 200; f++) {
      const hosts = calls.host.subarray(calls.fanoutOffsets[f], calls.fanoutOffsets[f + 1]);
      expect(new Set(hosts).size).toBe(hosts.length);
      widths.push(hosts.length);
    }
    expect(Math.min(...widths)).toBeGreaterThanOrEqual(80);
    expect(Math.max(...widths)).toBeLessThanOrEqual(120);
    // Uniform 80..120: mean 100, sd of the mean over 200 = 11.8 / sqrt(200) = 0.84; allow 5 sd.
    expect(Math.abs(widths.reduce((a, b) => a + b, 0) / 200 - gen.truth.width.mean)).toBeLessThan(
      4.2,
    );
    const spans = decodeProtobuf(encodeOtlpProtobuf(gen.batches().next().value ?? fail()));
    expect(spans.some((s) => s.kind === 3)).toBe(false);
  });
});

function fail(): never {
  throw new Error('no batch');
}
