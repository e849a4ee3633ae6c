// GET /api/v1/incidents: co-occurring episodes joined along call edges, with ranked root causes
// (docs/analysis.md "Incidents"), and how the dashboard words them.
import { getJson } from './client';
import { arr, num, obj, oneOf, optional, str, type Decoder } from './decode';
import { clock, timesSlower } from './episodes';
import type { TimeRange } from '../state/filters';

export interface IncidentCause {
  service: string;
  host?: string | undefined;
  operation?: string | undefined;
  score: number;
  cause: string;
  evidence: { kind: 'self' | 'network' | 'uninstrumented'; ratio: number; tiedWith: string[] };
}
export interface Incident {
  id: string;
  fromMs: number;
  toMs: number;
  requests: number;
  rootCauses: IncidentCause[];
  affected: { service: string; operation: string; ratio: number }[];
}
export interface Incidents {
  incidents: Incident[];
  tieMargin?: number | undefined;
}

export const decodeIncidents: Decoder<Incidents> = obj<Incidents>({
  incidents: arr(
    obj<Incident>({
      id: str,
      fromMs: num,
      toMs: num,
      requests: num,
      rootCauses: arr(
        obj<IncidentCause>({
          service: str,
          host: optional(str),
          operation: optional(str),
          score: num,
          cause: str,
          evidence: obj<IncidentCause['evidence']>({
            kind: oneOf(['self', 'network', 'uninstrumented'] as const),
            ratio: num,
            tiedWith: arr(str),
          }),
        }),
      ),
      affected: arr(
        obj<Incident['affected'][number]>({ service: str, operation: str, ratio: num }),
      ),
    }),
  ),
  tieMargin: optional(num),
});

export function fetchIncidents(r: TimeRange, signal: AbortSignal): Promise<Incidents> {
  return getJson(
    'incidents',
    { query: { from: Math.floor(r.fromMs), to: Math.ceil(r.toMs) } },
    decodeIncidents,
    signal,
  );
}

/**
 * The incident's headline: "customer, mysql slowed (up to 50x) from 05:04 to 05:06 UTC, 480
 * requests".
 */
export function describeIncident(i: Incident): string {
  const services = [...new Set(i.affected.map((a) => a.service))];
  const worst = Math.max(...i.affected.map((a) => a.ratio));
  const s = i.fromMs % 60_000 !== 0 || i.toMs % 60_000 !== 0;
  const up = Number.isFinite(worst) && worst > 0 ? ` (up to ${timesSlower(worst)})` : '';
  const n = i.requests === 1 ? '1 request' : `${String(i.requests)} requests`;
  return `${services.join(', ')} slowed${up} from ${clock(i.fromMs, s)} to ${clock(i.toMs, s)} UTC, ${n}`;
}

/** The top root cause in words: "Most likely: <cause> (96% of the extra time)", or why none. */
export function describeTopCause(i: Incident): string {
  const top = i.rootCauses[0];
  if (!top) return 'No root cause ranked: no request traces to compare with before it.';
  return `Most likely: ${top.cause} (${String(Math.round(top.score * 100))}% of the extra time).`;
}
