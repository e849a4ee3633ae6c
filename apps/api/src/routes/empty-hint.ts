import type { EdgeStructureSummary } from '@tailscope/contracts';
import type { EdgeSummary } from '@tailscope/analysis';

/**
 * Why `/api/v1/fanouts` found no fan-out, from the edges of the same range (issue #12): no calls
 * at all, no repeated calls, or only sequential ones; and how many calls were found behind
 * wrapper spans (so a user whose calls hide under wrappers sees they were found). Also the edges
 * with repeated calls, to show instead.
 */
export function emptyFanoutsHint(edges: readonly EdgeSummary[]): {
  hint: string;
  edges: EdgeStructureSummary[];
} {
  const repeated = edges.filter((e) => e.callsPerRequest.max >= 2);
  const wrapped = edges.reduce((n, e) => n + e.wrappedCalls, 0);
  const behind = wrapped > 0 ? ` Calls found behind wrapper spans: ${wrapped}.` : '';
  let why: string;
  if (edges.length === 0) why = 'No calls in this range (no span with a parent span in it).';
  else if (repeated.length === 0)
    why = `No repeated calls: in ${edges.length} edge${edges.length === 1 ? '' : 's'}, each caller calls each operation at most once per request.`;
  else
    why = `Only sequential repeated calls: ${repeated.length} edge${repeated.length === 1 ? '' : 's'} call the same operation several times per request, one call at a time (none in flight together).`;
  return {
    hint: why + behind,
    edges: repeated.map((e) => ({
      parentService: e.parentService,
      parentOperation: e.parentOperation,
      leafService: e.leafService,
      leafOperation: e.leafOperation,
      requests: e.requests,
      structure: e.structure,
    })),
  };
}
