import { API_PATHS, EdgesRoute, type Edge, type EdgesResponse } from '@tailscope/contracts';
import type { EdgeSummary } from '@tailscope/analysis';
import type { ApiContext } from './context';
import { type RouteApp, parseRange } from '../foundation';
import { edgeCoverage, selectDuplicates, selectEdges, selectSkew } from '../store/edges';
import { clampRange } from './clamp-range';
import { rangeSampling } from './sampling';
import { cachedAnswer } from '../cache';

/** The API record of one edge (queue wait and pool size only for pools). */
export function toApiEdge(e: EdgeSummary): Edge {
  return {
    parentService: e.parentService,
    parentOperation: e.parentOperation,
    leafService: e.leafService,
    leafOperation: e.leafOperation,
    requests: e.requests,
    calls: e.calls,
    wrappedCalls: e.wrappedCalls,
    callsPerRequest: e.callsPerRequest,
    structure: e.structure,
    structureShares: e.structureShares,
    concurrency: e.concurrency,
    ...(e.poolSize !== undefined ? { poolSize: e.poolSize } : {}),
    callLatency: e.callLatency,
    ...(e.queueWaitMs !== undefined ? { queueWaitMs: e.queueWaitMs } : {}),
    shareOfParent: e.shareOfParent,
  };
}

/** GET /api/v1/edges: every caller -> callee edge, duplicates and skew (docs/analysis.md). */
export function edgeRoutes(app: RouteApp, ctx: ApiContext): void {
  app.get(API_PATHS.edges.path, { schema: EdgesRoute }, async (req): Promise<EdgesResponse> => {
    const q = req.query;
    const range = await clampRange(ctx.store, parseRange(q, Date.now()));
    const scope = { fromNs: range.fromNs, toNs: range.toNs };
    const params = {
      parentService: q.parentService,
      leafService: q.leafService,
      asked: [range.fromMs, range.toMs],
    };
    return cachedAnswer(ctx.store, 'edges', params, range, async (): Promise<EdgesResponse> => {
      // First: whether any span carries a threshold decides which aggregate runs.
      const sampling = await rangeSampling(ctx.store, range);
      // Which stored chunks serve the range: read once for all three queries.
      const cov = await edgeCoverage(ctx.store, scope);
      const [edges, duplicates, skew] = await Promise.all([
        selectEdges(
          ctx.store,
          {
            ...scope,
            parentService: q.parentService,
            leafService: q.leafService,
            ...(sampling.weighted ? { weighted: true } : {}),
          },
          { cov },
        ),
        selectDuplicates(ctx.store, scope, { cov }),
        selectSkew(ctx.store, scope, { cov }),
      ]);
      return {
        from: range.fromMs,
        to: range.toMs,
        edges: edges.map(toApiEdge),
        duplicates,
        skew,
        sampling,
        ...(edges.length === 0
          ? { hint: 'No calls in this range (no span has a parent span).' }
          : {}),
      };
    });
  });
}
