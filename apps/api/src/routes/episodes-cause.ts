import type { EpisodeSpanEvidence, ServiceEpisode } from '@tailscope/contracts';
import { episodeCause } from '@tailscope/analysis';
import type { Store } from '../store';
import { selectSpanSplit, type SpanSplitRow } from '../store/episodes/spans';
import { baselineMs, joinable } from './episodes-evidence';

/**
 * Each callee episode's span evidence (its calls' server-span time against their time outside
 * it, inside the episode and just before it, over the same baseline windows as the metric
 * evidence) and its cause in words (`@tailscope/analysis` episodeCause; docs/metrics.md
 * "Causes"). One bounded span query for all the episodes. Edge episodes get no cause: their
 * callee's own episodes carry it.
 */

const MAX_ROWS = 50_000;

/** Call-weighted means of the rows whose window is in [lo, hi). */
function sumIn(rows: readonly SpanSplitRow[], lo: number, hi: number) {
  const t = { calls: 0, clientMs: 0, serverMs: 0, outsideMs: 0 };
  for (const r of rows)
    if (r.window >= lo && r.window < hi) {
      t.calls += r.calls;
      t.clientMs += r.clientMs;
      t.serverMs += r.serverMs;
      t.outsideMs += r.outsideMs;
    }
  return t;
}

/** The span evidence of one episode, or undefined with no calls inside or none before. */
export function spanEvidenceOf(
  e: ServiceEpisode,
  rows: readonly SpanSplitRow[],
  windowMs: number,
): EpisodeSpanEvidence | undefined {
  const from = Math.floor(e.fromMs / windowMs);
  const to = Math.ceil(e.toMs / windowMs);
  const base = Math.floor((e.fromMs - baselineMs(e, windowMs)) / windowMs);
  const inside = sumIn(rows, from, to);
  const before = sumIn(rows, base, from);
  if (inside.calls === 0 || before.calls === 0) return undefined;
  return {
    calls: inside.calls,
    baselineCalls: before.calls,
    clientMs: inside.clientMs / inside.calls,
    baselineClientMs: before.clientMs / before.calls,
    serverMs: inside.serverMs / inside.calls,
    baselineServerMs: before.serverMs / before.calls,
    outsideMs: inside.outsideMs / inside.calls,
    baselineOutsideMs: before.outsideMs / before.calls,
  };
}

/** The episodes with `spanEvidence`, `cause` and `causeSignal` added to the callee ones. */
export async function withCauses(
  store: Store,
  episodes: readonly ServiceEpisode[],
  windowMs: number,
): Promise<ServiceEpisode[]> {
  const callee = episodes.filter(joinable);
  if (callee.length === 0) return [...episodes];
  const fromMs = Math.min(...callee.map((e) => e.fromMs - baselineMs(e, windowMs)));
  const toMs = Math.max(...callee.map((e) => e.toMs));
  const rows = await selectSpanSplit(store, {
    fromNs: BigInt(Math.floor(fromMs)) * 1_000_000n,
    toNs: BigInt(Math.ceil(toMs)) * 1_000_000n,
    windowNs: BigInt(Math.round(windowMs)) * 1_000_000n,
    services: [...new Set(callee.map((e) => e.service))],
    hosts: [...new Set(callee.map((e) => e.host))],
    maxRows: MAX_ROWS,
  });
  const bySeries = new Map<string, SpanSplitRow[]>();
  for (const r of rows) {
    const key = `${r.service}\0${r.host}`;
    const g = bySeries.get(key);
    if (g) g.push(r);
    else bySeries.set(key, [r]);
  }
  return episodes.map((e) => {
    if (!joinable(e)) return e;
    const spans = spanEvidenceOf(e, bySeries.get(`${e.service}\0${e.host}`) ?? [], windowMs);
    const cause = episodeCause({ ...e, spans });
    return {
      ...e,
      ...(spans ? { spanEvidence: spans } : {}),
      cause: cause.text,
      causeSignal: cause.signal,
    };
  });
}
