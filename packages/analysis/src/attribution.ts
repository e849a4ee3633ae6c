import type { Dimension } from './conventions';
import { countByValue, dimensionColumn } from './dimensions';
import { fanoutMaxima } from './fanout-stats';
import { dropContext, p99Drop } from './p99-drop';
import { explainCauses } from './confounding';
import { quantileUnsorted } from './quantile';
import { callWeights, weightedByValue, weightRow } from './attribution-weights';
import { quantileMaybeWeighted } from './weighted-quantile';
import { benjaminiHochberg, fisherExactTwoSided, riskRatioKatz } from './stats';
import type { AttributeColumn, LeafCalls } from './types';

/**
 * Straggler attribution (DESIGN.md "Straggler", "Attribution"). A straggler is the latest
 * finishing call of its fan-out; a tail fan-out is one whose all-leaves time is above the tail
 * threshold (default: the type-7 p99 of the all-leaves times). For every value v of every
 * dimension asked, the 2x2 table over calls is
 *
 *                      tail straggler   not
 *   call has v               a          n1 - a
 *   call has not v           c          n2 - c
 *
 * risk ratio (a/n1)/(c/n2) with the Katz 95% interval, Fisher's exact two-sided p, and a
 * Benjamini-Hochberg q over every value of every dimension tested.
 *
 * A value is a cause only when it explains time, once: q < alpha (0.05), RR > 1, at least one
 * tail straggler has it, and the operation's p99 would drop (> 0 ms) without it. A value with no
 * tail straggler has the observed risk ratio 0 (the Haldane-corrected ratio, which could read
 * x2.2 for a small host with no straggler, stays only in its interval).
 */

export interface AttributionRow {
  dimension: Dimension;
  value: string;
  calls: number;
  stragglers: number;
  trafficShare: number;
  stragglerShare: number;
  riskRatio: number | null;
  riskRatioLow: number | null;
  riskRatioHigh: number | null;
  pValue: number;
  qValue: number;
  cause: boolean;
  p99DropMs: number | null;
  /**
   * For a cause: `dimension=value` of a stronger cause of another dimension that explains it
   * (among calls without that value it is no longer significant), else null. See confounding.ts.
   */
  explainedBy: string | null;
}

export interface AttributionOptions {
  dimensions: readonly Dimension[];
  /** Tail threshold in ms; overrides `tailQuantile`. */
  thresholdMs?: number;
  /** Quantile of the all-leaves times used as the tail threshold (default 0.99). */
  tailQuantile?: number;
  /** Seed of the p99-drop re-draws (default 1). */
  seed?: number;
  /** Rows kept per dimension, those with the smallest p-values (default 100); BH uses all. */
  maxValuesPerDimension?: number;
  /** q below which a value with RR > 1, stragglers and a positive p99 drop is a cause (default 0.05). */
  alpha?: number;
}

export interface Attribution {
  tailThresholdMs: number;
  tailFanouts: number;
  fanouts: number;
  calls: number;
  rows: AttributionRow[];
  /** Values tested (and counted in BH) but not returned because of maxValuesPerDimension. */
  omittedRows: number;
}

interface Tested {
  row: AttributionRow;
  v: number;
  colIndex: number;
}

/**
 * Attributes tail stragglers to dimension values. Rows come per dimension in the order asked,
 * each dimension's values by ascending p-value (then more stragglers, then name); values with
 * no calls are skipped. Cost O(calls * dimensions + values * (fan-outs + their calls)) for the
 * p99 drops, which are computed only for returned rows. Empty input gives no rows and NaN
 * threshold.
 */
export function attributeStragglers(calls: LeafCalls, opts: AttributionOptions): Attribution {
  const { allLeavesMs, straggler } = fanoutMaxima(calls);
  const fanouts = allLeavesMs.length;
  const total = calls.durationMs.length;
  // Sampled data: weighted threshold and descriptive figures (attribution-weights.ts).
  const w = callWeights(calls);
  const level = opts.tailQuantile ?? 0.99;
  const threshold =
    opts.thresholdMs ??
    (w
      ? quantileMaybeWeighted(allLeavesMs, w.fanout, level)
      : quantileUnsorted(allLeavesMs, level));
  const isTailStraggler = new Uint8Array(total);
  let tailFanouts = 0;
  let tailWeight = 0;
  for (let f = 0; f < fanouts; f++) {
    if ((allLeavesMs[f] as number) > threshold) {
      isTailStraggler[straggler[f] as number] = 1;
      tailFanouts++;
      tailWeight += w ? (w.fanout[f] as number) : 1;
    }
  }
  const cols = opts.dimensions.map((d) => dimensionColumn(calls, d));
  const tested: Tested[] = [];
  cols.forEach((col, colIndex) => {
    const dimension = opts.dimensions[colIndex] as Dimension;
    const n = countByValue(col);
    const a = new Uint32Array(col.values.length);
    for (let i = 0; i < total; i++) {
      if (isTailStraggler[i]) {
        const v = col.index[i] as number;
        a[v] = (a[v] as number) + 1;
      }
    }
    for (let v = 0; v < col.values.length; v++) {
      const n1 = n[v] as number;
      if (n1 === 0) continue;
      tested.push({
        row: countsRow(dimension, col.values[v] ?? '', a[v] as number, n1, tailFanouts, total),
        v,
        colIndex,
      });
    }
  });
  const q = benjaminiHochberg(tested.map((t) => t.row.pValue));
  const alpha = opts.alpha ?? 0.05;
  tested.forEach((t, i) => {
    t.row.qValue = q[i] as number;
  });
  const memberCache = new Map<number, Uint32Array[]>();
  const members = (c: number): Uint32Array[] => {
    let m = memberCache.get(c);
    if (!m) memberCache.set(c, (m = callsByValue(cols[c] as AttributeColumn)));
    return m;
  };
  // p99 drops first: a cause must explain time (a positive drop), so the drop decides the
  // cause flag, and explainCauses then weighs only real causes against each other.
  const keep = opts.maxValuesPerDimension ?? 100;
  const ctx = dropContext(calls, allLeavesMs, straggler, 1, w?.fanout);
  const rows: AttributionRow[] = [];
  let omittedRows = 0;
  cols.forEach((col, colIndex) => {
    const mine = tested.filter((t) => t.colIndex === colIndex).sort(byEvidence);
    omittedRows += Math.max(0, mine.length - keep);
    for (const t of mine.slice(0, keep)) {
      const seed = `${opts.seed ?? 1}|${t.row.dimension}=${t.row.value}`;
      t.row.p99DropMs = p99Drop(ctx, col, t.v, members(colIndex)[t.v] ?? new Uint32Array(0), seed);
      t.row.cause = isCause(t.row, alpha);
      rows.push(t.row);
    }
  });
  const causes = tested.filter((t) => t.row.cause);
  const explained = explainCauses(
    cols,
    members,
    causes.map((t) => ({
      col: t.colIndex,
      v: t.v,
      calls: t.row.calls,
      stragglers: t.row.stragglers,
      pValue: t.row.pValue,
      label: `${t.row.dimension}=${t.row.value}`,
    })),
    isTailStraggler,
    { calls: total, tailFanouts },
    alpha,
  );
  causes.forEach((t, i) => (t.row.explainedBy = explained[i] ?? null));
  if (w) {
    // After the tests and explainCauses, which count stored calls.
    const byCol = cols.map((col) => weightedByValue(col, w, isTailStraggler));
    for (const t of tested) {
      const c = byCol[t.colIndex];
      if (c)
        weightRow(t.row, c.calls[t.v] as number, c.stragglers[t.v] as number, {
          calls: w.calls,
          tail: tailWeight,
        });
    }
  }
  if (!w)
    return { tailThresholdMs: threshold, tailFanouts, fanouts, calls: total, rows, omittedRows };
  let fanoutWeight = 0;
  for (const x of w.fanout) fanoutWeight += x;
  return {
    tailThresholdMs: threshold,
    tailFanouts: Math.round(tailWeight),
    fanouts: Math.round(fanoutWeight),
    calls: Math.round(w.calls),
    rows,
    omittedRows,
  };
}

function countsRow(
  dimension: Dimension,
  value: string,
  a: number,
  n1: number,
  tail: number,
  total: number,
): AttributionRow {
  const n2 = total - n1;
  const c = tail - a;
  const rr = riskRatioKatz(a, n1, c, n2);
  return {
    dimension,
    value,
    calls: n1,
    stragglers: a,
    trafficShare: total === 0 ? 0 : n1 / total,
    stragglerShare: tail === 0 ? 0 : a / tail,
    // With no straggler the observed ratio is 0; the +0.5 correction is for the interval only.
    riskRatio: a === 0 && rr.ratio !== null ? 0 : rr.ratio,
    riskRatioLow: rr.low,
    riskRatioHigh: rr.high,
    pValue: fisherExactTwoSided(a, n1 - a, c, n2 - c),
    qValue: 1,
    cause: false,
    p99DropMs: null,
    explainedBy: null,
  };
}

/** The cause rule (see the module comment). */
function isCause(row: AttributionRow, alpha: number): boolean {
  return (
    row.qValue < alpha &&
    row.riskRatio !== null &&
    row.riskRatio > 1 &&
    row.stragglers > 0 &&
    row.p99DropMs !== null &&
    row.p99DropMs > 0
  );
}

function byEvidence(x: Tested, y: Tested): number {
  return (
    x.row.pValue - y.row.pValue ||
    y.row.stragglers - x.row.stragglers ||
    (x.row.value < y.row.value ? -1 : x.row.value > y.row.value ? 1 : 0)
  );
}

/** Indexes of the calls of every dictionary value, ascending. O(calls). */
function callsByValue(col: { values: string[]; index: Uint32Array }): Uint32Array[] {
  const counts = countByValue(col);
  const out = Array.from(counts, (c) => new Uint32Array(c));
  const fill = new Uint32Array(counts.length);
  for (let i = 0; i < col.index.length; i++) {
    const v = col.index[i] as number;
    (out[v] as Uint32Array)[fill[v] as number] = i;
    fill[v] = (fill[v] as number) + 1;
  }
  return out;
}
