import {
  at,
  murmurHash3,
  ROOT_PARENT_KEY,
  type LeafCalls,
  type SpanColumns,
} from '@tailscope/analysis';

/**
 * A what-if's work per request is bounded by the calls it replays, not only by the fan-outs:
 * one fan-out of 100,000 calls made every policy of its operation answer 503 after 30-47 s
 * (issue 25). Loaded fan-outs wider than MAX_FANOUT_CALLS keep a deterministic uniform sample of
 * that many calls (the smallest seeded hashes of their positions), and the answer says how many
 * fan-outs were sampled. The same bound holds in the whole requests: a span with more children
 * keeps that many of them, with their subtrees. A sampled fan-out's all-leaves time is the
 * latest of the kept calls, so its tail is understated: said in the notes.
 */
export const MAX_FANOUT_CALLS = 5000;
/**
 * The sample's seed: fixed, not the request's `seed`, so a range's cached trees serve every
 * seed and a fan-out keeps the same calls in every answer.
 */
export const WIDE_FANOUT_SEED = 25;

/** The answer's note for `n` sampled fan-outs (parsed back by sampledFanoutsOf). */
export function wideFanoutNote(n: number, where: string, maxCalls = MAX_FANOUT_CALLS): string {
  return `${n} fan-out${n === 1 ? '' : 's'} wider than ${maxCalls} calls in the ${where}: a uniform sample of ${maxCalls} calls of each was replayed (its all-leaves time understates the tail)`;
}

/** The fan-outs counted by a wideFanoutNote among `notes` (0 when none). */
export function sampledFanoutsOf(notes: readonly string[], where: string): number {
  for (const note of notes) {
    const m = /^(\d+) fan-outs? wider than \d+ calls in the (.+?): /.exec(note);
    if (m?.[2] === where) return Number(m[1]);
  }
  return 0;
}

/** Indexes [from, to) of which the `keep` with the smallest hash of (seed, key) are kept. */
function sampleRange(
  from: number,
  to: number,
  keep: number,
  key: (i: number) => string,
  seed: number,
) {
  const idx = Array.from({ length: to - from }, (_, j) => from + j);
  const hash = idx.map((i) => murmurHash3(key(i), seed));
  idx.sort((a, b) => at(hash, a - from) - at(hash, b - from) || a - b);
  return idx.slice(0, keep).sort((a, b) => a - b);
}

/**
 * LeafCalls with every fan-out of more than `maxCalls` calls sampled down to `maxCalls` (the
 * calls keep their order; every per-call and per-fan-out column follows). Returns the input
 * itself when no fan-out is wider. O(calls + sampled calls x log).
 */
export function capFanoutCalls(
  calls: LeafCalls,
  maxCalls: number,
  seed: number,
): { calls: LeafCalls; sampledFanouts: number } {
  const off = calls.fanoutOffsets;
  const fanouts = off.length - 1;
  let sampledFanouts = 0;
  for (let f = 0; f < fanouts; f++) if (at(off, f + 1) - at(off, f) > maxCalls) sampledFanouts++;
  if (sampledFanouts === 0) return { calls, sampledFanouts };
  const from: number[] = [];
  const offsets = new Uint32Array(fanouts + 1);
  for (let f = 0; f < fanouts; f++) {
    const a = at(off, f);
    const b = at(off, f + 1);
    if (b - a > maxCalls) {
      const trace = calls.traceIds[f] ?? '';
      const parent = calls.parentSpanIds?.[f] ?? '';
      from.push(...sampleRange(a, b, maxCalls, (i) => `${trace}:${parent}:${i - a}`, seed));
    } else for (let i = a; i < b; i++) from.push(i);
    offsets[f + 1] = from.length;
  }
  const f64 = (x: Float64Array): Float64Array => Float64Array.from(from, (i) => at(x, i));
  const u32 = (x: Uint32Array): Uint32Array => Uint32Array.from(from, (i) => at(x, i));
  const out: LeafCalls = {
    ...calls,
    fanoutOffsets: offsets,
    startMs: f64(calls.startMs),
    durationMs: f64(calls.durationMs),
    host: u32(calls.host),
    mode: u32(calls.mode),
    background: u32(calls.background),
  };
  if (calls.queueMs) out.queueMs = f64(calls.queueMs);
  if (calls.attributes)
    out.attributes = Object.fromEntries(
      Object.entries(calls.attributes).map(([k, col]) => [
        k,
        { values: col.values, index: u32(col.index) },
      ]),
    );
  return { calls: out, sampledFanouts };
}

/**
 * Span columns in which no span has more than `maxChildren` children: a wider span keeps a
 * deterministic uniform sample of its children (seeded hashes of their span keys), and the
 * others go with their whole subtrees. Returns the input itself when no span is wider.
 * O(spans) for traces of at most `maxChildren` + 1 spans, O(spans log) in the others.
 */
export function capWideParents(
  cols: SpanColumns,
  maxChildren: number,
  seed: number,
): { columns: SpanColumns; sampledFanouts: number } {
  const n = cols.spanKey.length;
  const keep = new Uint8Array(n).fill(1);
  let sampledFanouts = 0;
  for (let t = 0; t + 1 < cols.traceOffsets.length; t++) {
    const a = at(cols.traceOffsets, t);
    const b = at(cols.traceOffsets, t + 1);
    if (b - a <= maxChildren + 1) continue;
    const children = new Map<number, number[]>();
    for (let i = a; i < b; i++) {
      const list = children.get(at(cols.parentKey, i));
      if (list) list.push(i);
      else children.set(at(cols.parentKey, i), [i]);
    }
    const dropped: number[] = [];
    for (const [parent, list] of children) {
      // Roots are not a fan-out, however many a broken trace has.
      if (list.length <= maxChildren || parent === ROOT_PARENT_KEY) continue;
      sampledFanouts++;
      const kept = new Set(
        sampleRange(0, list.length, maxChildren, (j) => String(cols.spanKey[at(list, j)]), seed),
      );
      list.forEach((i, j) => {
        if (!kept.has(j)) dropped.push(i);
      });
    }
    // Subtrees of the dropped children go too (a visited mark guards against cycles).
    for (let i = dropped.pop(); i !== undefined; i = dropped.pop()) {
      if (keep[i] === 0) continue;
      keep[i] = 0;
      for (const c of children.get(at(cols.spanKey, i)) ?? []) dropped.push(c);
    }
  }
  if (sampledFanouts === 0) return { columns: cols, sampledFanouts };
  const from: number[] = [];
  const offsets = new Uint32Array(cols.traceOffsets.length);
  for (let t = 0; t + 1 < cols.traceOffsets.length; t++) {
    for (let i = at(cols.traceOffsets, t); i < at(cols.traceOffsets, t + 1); i++)
      if (keep[i] === 1) from.push(i);
    offsets[t + 1] = from.length;
  }
  const f64 = (x: Float64Array): Float64Array => Float64Array.from(from, (i) => at(x, i));
  return {
    columns: {
      ...cols,
      traceOffsets: offsets,
      spanKey: f64(cols.spanKey),
      parentKey: f64(cols.parentKey),
      startNs: f64(cols.startNs),
      durationNs: f64(cols.durationNs),
      desc: Uint32Array.from(from, (i) => at(cols.desc, i)),
    },
    sampledFanouts,
  };
}
