import type { MeasuredCause, MeasuredHostEvidence, StragglerRow } from '@tailscope/contracts';
import {
  MEASURED_RULES,
  measuredGcEvidence,
  measuredModeEvidence,
  type MeasuredHostEvidence as HostReading,
} from '@tailscope/analysis';
import type { MeasuredCauses } from '../store/metrics/modes';

/**
 * The evidence behind straggler values measured from metrics (issue #27; docs/metrics.md
 * "Sharing mode measured"): a `sharing_mode` row whose value some hosts were judged from their
 * steal and throttling, and the `background=gc` row where GC pause metrics made gc windows, get
 * `measured`: the rule, how many hosts, and the most telling hosts' readings with the series
 * the rule read. O(evidence values) per such row; at most 5 sharing-mode values and one gc row.
 */

/** Hosts whose readings an answer carries per row. */
const MAX_HOSTS = 5;
const GC_KIND = 'gc';

function toContract(e: HostReading, windowMs: number): MeasuredHostEvidence {
  return {
    host: e.host,
    signal: e.signal,
    metric: e.metric,
    value: e.value,
    baseline: Number.isFinite(e.baseline) ? e.baseline : null,
    level: e.level,
    windowsAbove: e.windowsAbove,
    windows: e.windows,
    series: {
      fromMs: e.series.fromWindow * windowMs,
      windowMs: e.series.step * windowMs,
      values: e.series.values,
    },
  };
}

function measuredOf(row: StragglerRow, m: MeasuredCauses): MeasuredCause | undefined {
  let hosts: string[] = [];
  let readings: HostReading[] = [];
  if (row.dimension === 'sharing_mode') {
    hosts = [...m.judged].filter(([, mode]) => mode === row.value).map(([h]) => h);
    readings = measuredModeEvidence(m.evidence, row.value, hosts, m.modes);
  } else if (row.dimension === 'background' && row.value === GC_KIND) {
    hosts = [...m.gcHosts];
    readings = measuredGcEvidence(m.evidence, hosts);
  }
  const rule = MEASURED_RULES[row.value];
  if (readings.length === 0 || rule === undefined) return undefined;
  return {
    rule,
    hosts: hosts.length,
    evidence: readings.slice(0, MAX_HOSTS).map((e) => toContract(e, m.windowMs)),
  };
}

/** The rows, with `measured` on those whose value was measured on some host. */
export function withMeasuredCauses(
  rows: readonly StragglerRow[],
  m: MeasuredCauses | undefined,
): StragglerRow[] {
  if (!m) return [...rows];
  return rows.map((r) => {
    const measured = measuredOf(r, m);
    return measured ? { ...r, measured } : r;
  });
}
