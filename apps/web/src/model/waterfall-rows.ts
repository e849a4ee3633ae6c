import { flattenTree, type TraceTree } from './trace-tree';
import type { FanoutCall, TraceFanout } from './fanout';
import type { WaterfallRow } from '@tailscope/charts';

/**
 * Rows for the waterfall: every span in tree order, except that a call's SERVER span is folded
 * into its call's row. `backgroundOf` tells the background activity a call overlapped, when
 * known (it lives in other traces, so the page looks it up).
 */
export function waterfallRows(
  tree: TraceTree,
  fanout: TraceFanout | undefined,
  backgroundOf: (call: FanoutCall) => string | undefined = () => undefined,
  critical: ReadonlySet<string> = new Set(),
): WaterfallRow[] {
  const calls = new Map<string, { call: FanoutCall; straggler: boolean }>();
  const folded = new Set<string>();
  fanout?.calls.forEach((c, i) => {
    calls.set(c.measured.span.spanId, { call: c, straggler: i === fanout.straggler });
    if (c.server && c.server !== c.measured) folded.add(c.server.span.spanId);
  });
  const rows: WaterfallRow[] = [];
  for (const t of flattenTree(tree.roots)) {
    if (folded.has(t.span.spanId)) continue;
    const c = calls.get(t.span.spanId);
    const row: WaterfallRow = {
      id: t.span.spanId,
      label: t.span.name,
      service: t.span.service,
      depth: t.depth,
      startMs: t.startMs,
      durationMs: t.durationMs,
      call: c !== undefined,
      straggler: c?.straggler ?? false,
      error: t.span.status.code === 'error',
    };
    if (critical.has(t.span.spanId)) row.critical = true;
    if (c) {
      const server = c.call.server;
      // A call is named by what answered it (the leaf), not by the caller's client span.
      if (server) {
        row.label = server.span.name;
        row.service = server.span.service;
      }
      // A folded SERVER span on the path puts its call's row on it.
      if (server && critical.has(server.span.spanId)) row.critical = true;
      if (server && server !== c.call.measured)
        row.inner = {
          startMs: server.startMs,
          durationMs: server.durationMs,
          spanId: server.span.spanId,
        };
      row.host = c.call.host;
      row.mode = c.call.sharingMode;
      const bg = backgroundOf(c.call);
      if (bg !== undefined && bg !== 'none') row.background = bg;
    }
    rows.push(row);
  }
  return rows;
}

/**
 * The row that shows a span: its own, or, for a SERVER span folded into its call, the call's.
 * The critical-path table lists both halves of a call (the client's wait on its callee, the
 * server's own time), and each must light up a row of the waterfall. O(rows).
 */
export function rowIdOf(
  rows: readonly WaterfallRow[],
  spanId: string | undefined,
): string | undefined {
  if (spanId === undefined) return undefined;
  return rows.find((r) => r.id === spanId || r.inner?.spanId === spanId)?.id ?? spanId;
}
