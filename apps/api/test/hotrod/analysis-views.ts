import type { Edge, EdgesResponse, TraceResponse } from '@tailscope/contracts';
import type { Harness } from './hotrod-support';
import { endNs, startNs } from './trace-shape';

/** Reading Tailscope's analysis views of a HotROD phase (issue #12). */

/** The phase's [from, to) in epoch ms, from its traces' spans (ms rounded outwards). */
export function phaseRange(traces: readonly TraceResponse[]): string {
  const spans = traces.flatMap((t) => t.spans);
  const lo = spans.reduce((m, s) => (startNs(s) < m ? startNs(s) : m), 2n ** 62n);
  const hi = spans.reduce((m, s) => (endNs(s) > m ? endNs(s) : m), 0n);
  return `from=${lo / 1_000_000n}&to=${hi / 1_000_000n + 1n}`;
}

/** GETs a JSON path of Tailscope's API from inside the namespace; throws unless 200. */
export async function apiJson(harness: Harness | undefined, path: string): Promise<unknown> {
  const [res] = (await harness?.api([path])) ?? [];
  if (res?.status !== 200) throw new Error(`${path}: ${res?.status} ${res?.body}`);
  return JSON.parse(res.body) as unknown;
}

export const ROUTE_EDGE = {
  parentService: 'frontend',
  parentOperation: 'HTTP GET /dispatch',
  leafService: 'route',
  leafOperation: 'HTTP GET /route',
};

export const edgeName = (
  e: Pick<Edge, 'parentService' | 'parentOperation' | 'leafService' | 'leafOperation'>,
): string => `${e.parentService} ${e.parentOperation} -> ${e.leafService} ${e.leafOperation}`;

/** One line per edge, as docs/real-traces.md reports them. */
export function describeEdges(r: EdgesResponse): string {
  const lines = r.edges.map((e) => {
    const pool =
      e.poolSize !== undefined
        ? `, pool ${e.poolSize}, queue wait p50 ${e.queueWaitMs?.p50.toFixed(1)} p95 ${e.queueWaitMs?.p95.toFixed(1)} ms`
        : '';
    return `  ${edgeName(e)}: ${e.requests} requests, calls/request p50 ${e.callsPerRequest.p50} max ${e.callsPerRequest.max}, ${e.structure} ${JSON.stringify(e.structureShares)}, concurrency p50 ${e.concurrency.p50} max ${e.concurrency.max}${pool}, call p50 ${e.callLatency.p50.toFixed(1)} ms, share of parent p50 ${e.shareOfParent.p50.toFixed(2)}, calls ${e.calls ?? 0} (behind wrappers ${e.wrappedCalls ?? 0})`;
  });
  return `${lines.join('\n')}\n  duplicates ${r.duplicates}, skew ${JSON.stringify(r.skew)}`;
}
