import { criticalPathByOperation, type NamedPathSpan } from './critical-path';

/**
 * The aggregated critical path (DESIGN.md "Definitions: Critical path"): mean critical-path ms
 * per (service, operation) over the traces of a slow band against those of a typical band,
 * so the entries say where the tail's extra time goes.
 */

export interface BandEntry {
  service: string;
  operation: string;
  /** Mean ms per slow trace (a trace where the operation is not on the path counts 0). */
  slowMs: number;
  typicalMs: number;
  /** Share (0..1) of all critical-path ms of the band. */
  slowShare: number;
  typicalShare: number;
  deltaMs: number;
}

/**
 * Critical-path ms per `service\0operation` summed over a band's traces, and the trace count.
 * Filled one trace at a time (`addToBand`), so a caller can yield between traces.
 */
export interface BandTotals {
  /** Traces added (weighted: the sum of their weights). */
  n: number;
  total: number;
  byKey: Map<string, number>;
}

export function emptyBand(): BandTotals {
  return { n: 0, total: 0, byKey: new Map() };
}

/**
 * Adds one trace's critical path to a band. `weight`: how many traces it stands for (its
 * sampling adjusted count; docs/analysis.md "Sampling"), so the band's means are weighted means;
 * 1 adds exactly what an unweighted band adds. O(spans log spans).
 */
export function addToBand(band: BandTotals, spans: readonly NamedPathSpan[], weight = 1): void {
  band.n += weight;
  for (const [key, ms] of criticalPathByOperation(spans)) {
    const w = weight === 1 ? ms : ms * weight;
    band.byKey.set(key, (band.byKey.get(key) ?? 0) + w);
    band.total += w;
  }
}

function bandTotals(traces: readonly (readonly NamedPathSpan[])[]): BandTotals {
  const band = emptyBand();
  for (const spans of traces) addToBand(band, spans);
  return band;
}

/**
 * Entries sorted by deltaMs, largest first (ties by service, then operation). O(total spans
 * log). With an empty band its means are 0 and its shares 0. Pure: traces in, numbers out.
 */
export function compareCriticalPaths(
  slow: readonly (readonly NamedPathSpan[])[],
  typical: readonly (readonly NamedPathSpan[])[],
): BandEntry[] {
  return compareBands(bandTotals(slow), bandTotals(typical));
}

/** The entries of two filled bands (see compareCriticalPaths). */
export function compareBands(s: BandTotals, t: BandTotals): BandEntry[] {
  const keys = new Set([...s.byKey.keys(), ...t.byKey.keys()]);
  const mean = (sum: number, n: number): number => (n > 0 ? sum / n : 0);
  const share = (sum: number, total: number): number => (total > 0 ? sum / total : 0);
  const out: BandEntry[] = [];
  for (const key of keys) {
    const [service = '', operation = ''] = key.split('\u0000');
    const slowSum = s.byKey.get(key) ?? 0;
    const typicalSum = t.byKey.get(key) ?? 0;
    const slowMs = mean(slowSum, s.n);
    const typicalMs = mean(typicalSum, t.n);
    out.push({
      service,
      operation,
      slowMs,
      typicalMs,
      slowShare: share(slowSum, s.total),
      typicalShare: share(typicalSum, t.total),
      deltaMs: slowMs - typicalMs,
    });
  }
  return out.sort(
    (a, b) =>
      b.deltaMs - a.deltaMs ||
      (a.service < b.service ? -1 : a.service > b.service ? 1 : 0) ||
      (a.operation < b.operation ? -1 : a.operation > b.operation ? 1 : 0),
  );
}
