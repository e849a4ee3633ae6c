import type { LeafCalls } from '@tailscope/analysis';
import type { FanoutCall } from './fanout';

/**
 * The background activity of each call of one trace's fan-out, from the API's leaf data (it is
 * computed from other traces' spans, on the server). The fan-out is found by trace id (and parent
 * span id when the data carries it); its calls are matched to the trace's calls by host and
 * nearest duration. Returns span id -> background name ('none' when it overlapped nothing).
 */
export function backgroundByCall(
  leaves: LeafCalls,
  traceId: string,
  parentSpanId: string,
  calls: readonly FanoutCall[],
): Map<string, string> {
  const out = new Map<string, string>();
  const fanouts = leaves.fanoutOffsets.length - 1;
  let f = -1;
  for (let i = 0; i < fanouts; i++) {
    if (leaves.traceIds[i] !== traceId) continue;
    const parent = leaves.parentSpanIds?.[i];
    if (parent === undefined || parent === '' || parent === parentSpanId) {
      f = i;
      break;
    }
  }
  if (f < 0) return out;
  const a = leaves.fanoutOffsets[f] ?? 0;
  const b = leaves.fanoutOffsets[f + 1] ?? a;
  const used = new Set<number>();
  for (const c of calls) {
    let best = -1;
    let bestDiff = Infinity;
    for (let i = a; i < b; i++) {
      if (used.has(i) || leaves.hosts[leaves.host[i] ?? 0] !== c.host) continue;
      const diff = Math.abs((leaves.durationMs[i] ?? 0) - c.measured.durationMs);
      if (diff < bestDiff) {
        bestDiff = diff;
        best = i;
      }
    }
    if (best < 0) continue;
    used.add(best);
    out.set(c.measured.span.spanId, leaves.backgrounds[leaves.background[best] ?? 0] ?? 'none');
  }
  return out;
}
