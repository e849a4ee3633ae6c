import {
  UNKNOWN_HOST,
  gcBackgroundWindows,
  measuredSharingModes,
  type BackgroundWindow,
} from '@tailscope/analysis';
import type { Store } from '../engine/client';
import { selectHostEvidence, type HostEvidence } from './evidence';
import { sql } from '../sql/template';

/**
 * What the metrics say about hosts whose spans do not (docs/metrics.md "Sharing mode
 * measured"): a sharing mode per host from its steal and throttling evidence, and `gc`
 * background windows from its GC pauses, over one range in MEASURE_WINDOW_NS windows. One
 * bounded evidence query; none at all when the metrics tables are absent (read-only over a
 * Collector that writes spans only).
 */

/** The measurement's window (a minute: one or more points of a typical 10-60 s export). */
export const MEASURE_WINDOW_NS = 60_000_000_000n;
const MAX_ROWS = 100_000;
const METRIC_TABLES = ['otel_metrics_gauge', 'otel_metrics_sum', 'otel_metrics_histogram'];

const present = new WeakSet<Store>();

/** Whether the evidence tables exist (a positive answer is kept: tables are never dropped). */
export async function hasMetricTables(store: Store): Promise<boolean> {
  if (present.has(store)) return true;
  const rows = await store.query<{ n: number | string }>(sql`
    SELECT count() AS n FROM system.tables
    WHERE database = currentDatabase() AND name IN ${METRIC_TABLES}`);
  const ok = Number(rows[0]?.n ?? 0) === METRIC_TABLES.length;
  if (ok) present.add(store);
  return ok;
}

export interface HostMeasurement {
  modes: Map<string, string>;
  /** GC windows, times in ns relative to the caller's base. */
  gc: BackgroundWindow[];
  /** The evidence read, in MEASURE_WINDOW_NS windows (absent when none was read). */
  evidence?: HostEvidence;
}

/** What a leaf load measured: the evidence behind causes measured from metrics. */
export interface MeasuredCauses {
  evidence: HostEvidence;
  /** Every measured host's mode (a mode's baseline reads the hosts judged otherwise). */
  modes: ReadonlyMap<string, string>;
  /** The hosts whose calls took a measured mode, with it. */
  judged: ReadonlyMap<string, string>;
  /** The hosts whose calls got measured gc windows. */
  gcHosts: readonly string[];
  /** The evidence's window. */
  windowMs: number;
  /** The hosts the evidence was read for (those without metrics have no series in it). */
  asked: readonly string[];
}

/** The hosts' measured modes and GC windows over [from, to). */
export async function measureHosts(
  store: Store,
  q: { fromNs: bigint; toNs: bigint; hosts: readonly string[]; baseNs: bigint },
): Promise<HostMeasurement> {
  const hosts = q.hosts.filter((h) => h !== '' && h !== UNKNOWN_HOST);
  if (hosts.length === 0 || !(await hasMetricTables(store))) return { modes: new Map(), gc: [] };
  const evidence = await selectHostEvidence(store, {
    fromNs: q.fromNs,
    toNs: q.toNs,
    windowNs: MEASURE_WINDOW_NS,
    hosts,
    maxRows: MAX_ROWS,
  });
  const startOf = (w: number): number => Number(BigInt(w) * MEASURE_WINDOW_NS - q.baseNs);
  return {
    modes: measuredSharingModes(evidence),
    gc: gcBackgroundWindows(evidence, startOf),
    evidence,
  };
}
