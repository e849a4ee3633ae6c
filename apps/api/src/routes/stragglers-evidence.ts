import type { HostCauseEvidence, StragglerRow } from '@tailscope/contracts';
import { UNKNOWN_HOST, hostPeerEvidence, type PeerEvidence } from '@tailscope/analysis';
import type { Store } from '../store';
import {
  JOIN_KEYS,
  MAX_EVIDENCE_HOSTS,
  selectHostEvidence,
  selectMetricHosts,
  type HostEvidence,
} from '../store/metrics/evidence';
import { MEASURE_WINDOW_NS, hasMetricTables, type MeasuredCauses } from '../store/metrics/modes';

/**
 * The evidence beside each straggler cause (issue #27; docs/metrics.md "Evidence beside
 * straggler causes"): a host cause gets its metric series over the range against the same
 * series on the leaf's other hosts (`evidence`); a cause with no evidence and no `measured` gets
 * `evidenceNote`, saying why. One evidence query per answer with a host cause (none when the
 * leaf load already read every host's evidence), one more to name the metric hosts when a cause
 * host has none.
 */

/** Entries per host cause. */
const MAX_PER_CAUSE = 5;
const MAX_ROWS = 100_000;
/** Metric hosts named in a note. */
const NOTE_HOSTS = 10;
const WINDOW_MS = Number(MEASURE_WINDOW_NS / 1_000_000n);

export interface CauseScope {
  fromNs: bigint;
  toNs: bigint;
  /** Every host of the leaf's calls (the peers). */
  hosts: readonly string[];
  measured: MeasuredCauses | undefined;
}

const finiteOrNull = (v: number): number | null => (Number.isFinite(v) ? v : null);

function toContract(e: PeerEvidence): HostCauseEvidence {
  return {
    signal: e.signal,
    host: e.host,
    metric: e.metric,
    value: e.value,
    baseline: finiteOrNull(e.baseline),
    ratio: Number.isNaN(e.ratio) ? null : e.ratio,
    peers: e.peers,
    windows: e.windows,
    series: {
      fromMs: e.series.fromWindow * WINDOW_MS,
      windowMs: e.series.step * WINDOW_MS,
      values: e.series.values,
    },
  };
}

/** Why a cause that is not a host has no metric evidence of its own. */
function valueNote(r: StragglerRow): string {
  if (r.dimension === 'sharing_mode')
    return r.value === 'unknown'
      ? 'calls whose spans carry no host.sharing_mode and whose hosts send no CPU steal or throttling metrics'
      : "a sharing mode the spans declare (resource host.sharing_mode): its hosts' metrics show beside the host causes and in the host heatmap";
  if (r.dimension === 'background')
    return r.value === 'none'
      ? 'calls overlapping no background activity'
      : 'background activity from spans (span attribute background.activity): those spans are its evidence';
  return 'a span attribute: it names no host whose metrics could be read';
}

/** The evidence of the leaf's hosts over the range: the leaf load's if it read them all. */
async function readEvidence(store: Store, q: CauseScope, causes: string[]): Promise<HostEvidence> {
  const asked = new Set(q.measured?.asked ?? []);
  if (q.measured && q.hosts.every((h) => h === UNKNOWN_HOST || asked.has(h)))
    return q.measured.evidence;
  const causeSet = new Set(causes);
  const hosts = [...causes, ...q.hosts.filter((h) => !causeSet.has(h) && h !== UNKNOWN_HOST)];
  return selectHostEvidence(store, {
    fromNs: q.fromNs,
    toNs: q.toNs,
    windowNs: MEASURE_WINDOW_NS,
    hosts: hosts.slice(0, MAX_EVIDENCE_HOSTS),
    maxRows: MAX_ROWS,
  });
}

/** The rows, with `evidence` on host causes and `evidenceNote` on causes with nothing to show. */
export async function withCauseEvidence(
  store: Store,
  rows: readonly StragglerRow[],
  q: CauseScope,
): Promise<StragglerRow[]> {
  const causes = rows
    .filter((r) => r.cause && r.dimension === 'host' && r.value !== UNKNOWN_HOST && r.value !== '')
    .map((r) => r.value);
  const tables = causes.length > 0 && (await hasMetricTables(store));
  const evidence = tables ? await readEvidence(store, q, causes) : undefined;
  // The leaf load reads from an hour before the range (background lookback): keep the range's.
  const windows = {
    from: Math.floor(Number(q.fromNs / MEASURE_WINDOW_NS)),
    to: Math.ceil(Number(q.toNs) / Number(MEASURE_WINDOW_NS)),
  };
  let sample: string[] | undefined;
  const out: StragglerRow[] = [];
  for (const r of rows) {
    if (!r.cause || r.measured !== undefined) {
      out.push(r);
      continue;
    }
    if (r.dimension !== 'host') {
      out.push({ ...r, evidenceNote: valueNote(r) });
      continue;
    }
    if (r.value === UNKNOWN_HOST || r.value === '') {
      out.push({
        ...r,
        evidenceNote: `the spans' resource names no host (${JOIN_KEYS.join(', ')}): spans and metrics cannot be joined`,
      });
      continue;
    }
    if (!evidence) {
      out.push({
        ...r,
        evidenceNote: 'no metrics tables in the database (otel_metrics_*): no metric evidence',
      });
      continue;
    }
    const found = hostPeerEvidence(evidence, r.value, MAX_PER_CAUSE, windows);
    if (found.length > 0) {
      out.push({ ...r, evidence: found.map(toContract) });
      continue;
    }
    sample ??= await selectMetricHosts(store, q.fromNs, q.toNs, NOTE_HOSTS);
    const named =
      sample.length > 0 &&
      (await selectMetricHosts(store, q.fromNs, q.toNs, 1, [r.value])).length > 0;
    out.push({ ...r, evidenceNote: hostNote(r.value, sample, named) });
  }
  return out;
}

/** Why a host cause has no evidence; `named`: some metric's resource names the host. */
function hostNote(host: string, sample: readonly string[], named: boolean): string {
  if (sample.length === 0) return 'no metrics stored over the range';
  if (named)
    return `the metrics of host "${host}" have no evidence metric (docs/metrics.md) over the range`;
  return `no metric's resource names host "${host}" under ${JOIN_KEYS.join(', ')}: spans and metrics cannot be joined (metrics name ${sample.join(', ')})`;
}
