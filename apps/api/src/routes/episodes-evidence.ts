import type { EpisodeEvidence, ServiceEpisode } from '@tailscope/contracts';
import { UNKNOWN_HOST } from '@tailscope/analysis';
import type { Store } from '../store';
import {
  JOIN_KEYS,
  MAX_EVIDENCE_HOSTS,
  selectHostEvidence,
  selectMetricHosts,
  seriesByHost,
  type EvidenceSignal,
  type HostEvidence,
} from '../store/metrics/evidence';
import { hasMetricTables } from '../store/metrics/modes';

/**
 * Each callee episode's metric evidence: per (signal, metric) of its host, the mean over the
 * episode's windows against the mean over the baseline windows just before it (as long as the
 * episode, at least BASELINE_MIN_WINDOWS, at most an hour). One evidence query for all the
 * episodes; when an episode gets none, `evidenceNote` says why.
 */

export const BASELINE_MIN_WINDOWS = 3;
const BASELINE_MAX_MS = 3_600_000;
/** At most this many evidence rows are read per answer, and this many entries per episode. */
const MAX_ROWS = 50_000;
const MAX_PER_EPISODE = 10;
/** Metric hosts named in a note. */
const NOTE_HOSTS = 10;
/** An evidence entry carries its series when it spans at most this many windows. */
const MAX_SERIES_WINDOWS = 400;

export const baselineMs = (e: ServiceEpisode, windowMs: number): number =>
  Math.min(Math.max(e.toMs - e.fromMs, BASELINE_MIN_WINDOWS * windowMs), BASELINE_MAX_MS);

export const joinable = (e: ServiceEpisode): boolean =>
  e.kind !== 'edge' && e.host !== '*' && e.host !== UNKNOWN_HOST && e.host !== '';

/** Mean of series i's values whose window is in [lo, hi). */
function meanIn(s: HostEvidence, i: number, lo: number, hi: number): number {
  let n = 0;
  let sum = 0;
  for (let j = s.start[i] as number; j < (s.start[i + 1] as number); j++) {
    const w = s.window[j] as number;
    if (w >= lo && w < hi) {
      n++;
      sum += s.value[j] as number;
    }
  }
  return n > 0 ? sum / n : NaN;
}

/** Series i's values per window over [lo, hi), null where there is none; undefined if too long. */
function seriesOf(s: HostEvidence, i: number, lo: number, hi: number, windowMs: number) {
  if (hi - lo > MAX_SERIES_WINDOWS || hi <= lo) return undefined;
  const values: (number | null)[] = new Array<number | null>(hi - lo).fill(null);
  for (let j = s.start[i] as number; j < (s.start[i + 1] as number); j++) {
    const w = s.window[j] as number;
    if (w >= lo && w < hi) values[w - lo] = s.value[j] as number;
  }
  return { fromMs: lo * windowMs, windowMs, values };
}

/** The evidence of one episode from its host's series (`ids`: one per signal and metric). */
export function episodeEvidence(
  e: ServiceEpisode,
  s: HostEvidence,
  ids: readonly number[],
  windowMs: number,
): EpisodeEvidence[] {
  const from = Math.floor(e.fromMs / windowMs);
  const to = Math.ceil(e.toMs / windowMs);
  const base = Math.floor((e.fromMs - baselineMs(e, windowMs)) / windowMs);
  const out: EpisodeEvidence[] = [];
  for (const i of ids) {
    const value = meanIn(s, i, from, to);
    const baseline = meanIn(s, i, base, from);
    if (!Number.isFinite(value) || !Number.isFinite(baseline)) continue;
    const ratio = baseline > 0 ? value / baseline : value > 0 ? Number.MAX_VALUE : 1;
    const series = seriesOf(s, i, base, to, windowMs);
    out.push({
      signal: s.signal[i] as EvidenceSignal,
      host: e.host,
      metric: s.metric[i] as string,
      value,
      baseline,
      ratio,
      ...(series ? { series } : {}),
    });
  }
  return out.sort((a, b) => b.ratio - a.ratio).slice(0, MAX_PER_EPISODE);
}

interface MetricHosts {
  /** Some hosts metrics name (at most NOTE_HOSTS). */
  sample: string[];
  /** The episodes' hosts that metrics name. */
  asked: Set<string>;
}

/** Why an episode has no evidence, given the hosts metrics name over the same range. */
function noteOf(e: ServiceEpisode, metricHosts: MetricHosts): string {
  if (e.kind === 'edge' || e.host === '*')
    return "an edge series spans the callee's hosts: see the callee's own episodes";
  if (e.host === UNKNOWN_HOST || e.host === '')
    return `the spans' resource names no host (${JOIN_KEYS.join(', ')}): spans and metrics cannot be joined`;
  if (metricHosts.sample.length === 0) return 'no metrics stored over the episode and its baseline';
  if (!metricHosts.asked.has(e.host))
    return `no metric's resource names host "${e.host}" under ${JOIN_KEYS.join(', ')}: spans and metrics cannot be joined (metrics name ${metricHosts.sample.join(', ')})`;
  return `the metrics of host "${e.host}" have no evidence metric (docs/metrics.md) both inside and before the episode`;
}

/** The episodes with `evidence` (or `evidenceNote`) added; windowMs is the episodes' window. */
export async function withEvidence(
  store: Store,
  episodes: readonly ServiceEpisode[],
  windowMs: number,
): Promise<ServiceEpisode[]> {
  if (episodes.length === 0) return [];
  const fromMs = Math.min(...episodes.map((e) => e.fromMs - baselineMs(e, windowMs)));
  const toMs = Math.max(...episodes.map((e) => e.toMs));
  const fromNs = BigInt(Math.floor(fromMs)) * 1_000_000n;
  const toNs = BigInt(Math.ceil(toMs)) * 1_000_000n;
  const hosts = [...new Set(episodes.filter(joinable).map((e) => e.host))];
  // Read-only over a Collector that writes spans only: no metrics tables, no evidence.
  const tables = await hasMetricTables(store);
  if (!tables)
    return episodes.map((e) => ({
      ...e,
      evidenceNote: joinable(e)
        ? 'no metrics tables in the database (otel_metrics_*): no metric evidence'
        : noteOf(e, { sample: [], asked: new Set() }),
    }));
  const evidence = await selectHostEvidence(store, {
    fromNs,
    toNs,
    windowNs: BigInt(Math.round(windowMs)) * 1_000_000n,
    hosts: hosts.slice(0, MAX_EVIDENCE_HOSTS),
    maxRows: MAX_ROWS,
  });
  const byHost = seriesByHost(evidence);
  let metricHosts: MetricHosts | undefined;
  const out: ServiceEpisode[] = [];
  for (const e of episodes) {
    const found = joinable(e)
      ? episodeEvidence(e, evidence, byHost.get(e.host) ?? [], windowMs)
      : [];
    if (found.length > 0) {
      out.push({ ...e, evidence: found });
      continue;
    }
    metricHosts ??= {
      sample: await selectMetricHosts(store, fromNs, toNs, NOTE_HOSTS),
      asked: new Set(await selectMetricHosts(store, fromNs, toNs, MAX_EVIDENCE_HOSTS, hosts)),
    };
    out.push({ ...e, evidenceNote: noteOf(e, metricHosts) });
  }
  return out;
}
