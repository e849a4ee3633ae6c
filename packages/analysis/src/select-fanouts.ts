import { at } from './at';
import type { AttributeColumn, LeafCalls } from './types';

/**
 * The fan-outs for which `keep(f)` holds, with all their calls and every optional column, in
 * their original order. Dictionaries (hosts, modes, backgrounds, attribute values) are shared
 * with the input, so indexes keep their meaning; sampling weights follow their fan-outs. Used to split a run into the groups of a
 * randomized A/B (e.g. the control and treatment arms of a demo run). O(calls).
 */
export function selectFanouts(calls: LeafCalls, keep: (fanout: number) => boolean): LeafCalls {
  const off = calls.fanoutOffsets;
  const fanouts = off.length - 1;
  const kept: number[] = [];
  let n = 0;
  for (let f = 0; f < fanouts; f++) {
    if (!keep(f)) continue;
    kept.push(f);
    n += at(off, f + 1) - at(off, f);
  }
  // Source position of each kept call, in order: every per-call column is copied through it.
  const from = new Uint32Array(n);
  const offsets = new Uint32Array(kept.length + 1);
  let pos = 0;
  for (const [j, f] of kept.entries()) {
    for (let i = at(off, f); i < at(off, f + 1); i++) from[pos++] = i;
    offsets[j + 1] = pos;
  }
  const pickF64 = (a: Float64Array): Float64Array => Float64Array.from(from, (i) => at(a, i));
  const pickU32 = (a: Uint32Array): Uint32Array => Uint32Array.from(from, (i) => at(a, i));
  const out: LeafCalls = {
    fanoutOffsets: offsets,
    fanoutStartMs: Float64Array.from(kept, (f) => at(calls.fanoutStartMs, f)),
    traceIds: kept.map((f) => at(calls.traceIds, f)),
    startMs: pickF64(calls.startMs),
    durationMs: pickF64(calls.durationMs),
    host: pickU32(calls.host),
    mode: pickU32(calls.mode),
    background: pickU32(calls.background),
    hosts: calls.hosts,
    modes: calls.modes,
    backgrounds: calls.backgrounds,
  };
  if (calls.queueMs) out.queueMs = pickF64(calls.queueMs);
  const parents = calls.parentSpanIds;
  if (parents) out.parentSpanIds = kept.map((f) => at(parents, f));
  const weights = calls.weights;
  if (weights) out.weights = Float64Array.from(kept, (f) => at(weights, f));
  if (calls.attributes) {
    // Own properties whatever the key (an attribute named `__proto__` included).
    out.attributes = Object.fromEntries(
      Object.entries(calls.attributes).map(([key, col]): [string, AttributeColumn] => [
        key,
        { values: col.values, index: pickU32(col.index) },
      ]),
    );
  }
  return out;
}
