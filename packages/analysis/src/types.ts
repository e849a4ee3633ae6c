/**
 * Columnar data shared by the analysis, the simulator, the API and the browser worker.
 * Times are milliseconds as float64 unless a name says otherwise.
 */

/**
 * The leaf calls of many fan-outs of one fan-out operation, grouped by fan-out: calls of
 * fan-out f are indexes `fanoutOffsets[f] .. fanoutOffsets[f + 1] - 1`.
 *
 * - `startMs`: call start relative to the fan-out's earliest call start (so >= 0).
 * - `durationMs`: the call's latency as the caller sees it.
 * - finishing time of a call = startMs + durationMs (DESIGN.md "Leaf finishing time").
 * - `host`, `mode`, `background`: indexes into the matching dictionaries; background 0 = 'none'.
 * - `fanoutStartMs`: the fan-out's earliest call start, in epoch ms (for time windows).
 * - `traceIds`: one per fan-out, to open an example trace.
 */
export interface LeafCalls {
  fanoutOffsets: Uint32Array; // length = fanouts + 1
  fanoutStartMs: Float64Array; // length = fanouts
  traceIds: string[]; // length = fanouts
  startMs: Float64Array; // length = calls
  durationMs: Float64Array; // length = calls
  host: Uint32Array; // length = calls
  mode: Uint32Array; // length = calls
  background: Uint32Array; // length = calls
  hosts: string[];
  modes: string[];
  backgrounds: string[]; // backgrounds[0] === 'none'
  /**
   * Optional: server-side queueing time of each call, ms (time before execution began), when
   * spans carry it. The tied-request replay uses it; without it the replay assumes a model.
   */
  queueMs?: Float64Array; // length = calls
  /**
   * Optional: the fan-out's parent span id, one per fan-out (with `traceIds`, the fan-out's
   * identity; the seeded "one random leaf" pick hashes both).
   */
  parentSpanIds?: string[]; // length = fanouts
  /**
   * Optional: values of `attr:KEY` dimensions, per attribute key, dictionary-encoded like
   * `host`: `index[i]` is the position of call i's value in `values`.
   */
  attributes?: Record<string, AttributeColumn>;
  /**
   * Optional: each fan-out's sampling adjusted count (docs/analysis.md "Sampling"), the
   * population fan-outs it stands for. Absent (or all 1) means unweighted: every stored fan-out
   * counts once, and the analyses take their unweighted path unchanged.
   */
  weights?: Float64Array; // length = fanouts
}

/** One dictionary-encoded per-call column (e.g. an attribute's values). */
export interface AttributeColumn {
  values: string[];
  index: Uint32Array; // length = calls
}

/** A fan-out operation as named in DESIGN.md ("Names"). */
export interface FanoutOperation {
  parentService: string;
  parentOperation: string;
  leafService: string;
  leafOperation: string;
}

/** Quantiles as the API reports them, in ms. */
export interface Quantiles {
  p50: number;
  p95: number;
  p99: number;
  p999: number;
}

/** A seeded random source: returns floats uniform in [0, 1). */
export type Random = () => number;
