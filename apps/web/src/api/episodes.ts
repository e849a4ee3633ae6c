// GET /api/v1/episodes: windows where calls into a service (per host) or along an edge were
// slower than their own history (docs/analysis.md "Episodes"), and how the dashboard words them.
import type * as C from '@tailscope/contracts';
import { getJson } from './client';
import { decodeSampling } from './contracts';
import { arr, nullable, num, numOr, obj, oneOf, optional, str, type Decoder } from './decode';
import type { TimeRange } from '../state/filters';

export type Episode = C.ServiceEpisode;
export type Sampling = C.SamplingInfo;
export interface Episodes {
  windowSeconds: number;
  episodes: Episode[];
  sampling?: Sampling | undefined;
}

export const decodeEpisodes: Decoder<Episodes> = obj<Episodes>({
  windowSeconds: num,
  episodes: arr(
    obj<Episode>({
      service: str,
      host: str,
      parentService: optional(str),
      parentOperation: optional(str),
      operation: optional(str),
      kind: optional(oneOf(['callee', 'edge'] as const)),
      fromMs: num,
      toMs: num,
      p99Ms: numOr(NaN),
      baselineP99Ms: numOr(NaN),
      ratio: numOr(NaN),
      calls: num,
      qValue: num,
      evidence: optional(
        arr(
          obj<C.EpisodeEvidence>({
            signal: str,
            host: str,
            metric: optional(str),
            value: num,
            baseline: num,
            ratio: numOr(NaN),
            series: optional(
              obj<NonNullable<C.EpisodeEvidence['series']>>({
                fromMs: num,
                windowMs: num,
                values: arr(nullable(num)),
              }),
            ),
          }),
        ),
      ),
      evidenceNote: optional(str),
      spanEvidence: optional(
        obj<C.EpisodeSpanEvidence>({
          calls: num,
          baselineCalls: num,
          clientMs: num,
          baselineClientMs: num,
          serverMs: num,
          baselineServerMs: num,
          outsideMs: num,
          baselineOutsideMs: num,
        }),
      ),
      cause: optional(str),
      causeSignal: optional(str),
    }),
  ),
  sampling: optional(decodeSampling),
});

export function fetchEpisodes(
  r: TimeRange,
  service: string | undefined,
  signal: AbortSignal,
): Promise<Episodes> {
  return getJson(
    'episodes',
    { query: { from: Math.floor(r.fromMs), to: Math.ceil(r.toMs), service } },
    decodeEpisodes,
    signal,
  );
}

const pad = (n: number): string => String(n).padStart(2, '0');
/** HH:MM (UTC) of an epoch ms, HH:MM:SS when `seconds`. */
export function clock(ms: number, seconds = false): string {
  const d = new Date(ms);
  const hm = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
  return seconds ? `${hm}:${pad(d.getUTCSeconds())}` : hm;
}

/** "40x", "3.2x", "1.6x": a slowdown factor as people say it. */
export function timesSlower(ratio: number): string {
  if (!Number.isFinite(ratio)) return 'far';
  return ratio >= 10 ? `${String(Math.round(ratio))}x` : `${ratio.toFixed(1)}x`;
}

/**
 * One episode in words: "calls into currencyservice on host-3 were 40x slower from 05:19 to
 * 05:21 (UTC)"; an edge names its caller.
 */
export function describeEpisode(e: Episode): string {
  const on = e.host !== '' && e.host !== '*' ? ` on ${e.host}` : '';
  // A host episode may also name its edge (the same calls: one entry per fault).
  const into =
    e.kind === 'edge' || e.parentService !== undefined
      ? `calls from ${e.parentService ?? '?'} into ${e.service}${e.operation ? ` ${e.operation}` : ''}${on}`
      : `calls into ${e.service}${on}`;
  // Seconds only when a bound is not on a whole minute (windows under a minute).
  const s = e.fromMs % 60_000 !== 0 || e.toMs % 60_000 !== 0;
  return `${into} were ${timesSlower(e.ratio)} slower from ${clock(e.fromMs, s)} to ${clock(e.toMs, s)} UTC`;
}
