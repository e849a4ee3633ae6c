import { formatMs, formatPct } from '@tailscope/charts';
import type { TraceTree } from '../../model/trace-tree';
import { pathLabel, pathRows } from '../../model/span-details';

/** Rows listed at most: a big trace can have thousands of spans on its path. */
const MAX_ROWS = 50;

/** The trace's critical path by self time: what held the root's end, largest first. */
export function CriticalPathTable({
  path,
  tree,
  onSelect,
}: {
  path: readonly { spanId: string; selfMs: number }[];
  tree: TraceTree;
  onSelect: (spanId: string) => void;
}) {
  const all = pathRows(path, tree.byId);
  const rows = all.slice(0, MAX_ROWS);
  if (rows.length === 0) return <p className="caption">No critical path (no root span).</p>;
  return (
    <div className="table-wrap">
      <table data-testid="critical-path">
        <thead>
          <tr>
            <th>Span</th>
            <th className="n">Self time on the path</th>
            <th className="n">Share</th>
            <th className="n">Starts at</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.span.span.spanId} data-span={r.span.span.spanId}>
              <td>
                <button
                  type="button"
                  className="link"
                  onClick={() => {
                    onSelect(r.span.span.spanId);
                  }}
                >
                  {pathLabel(r.span)}
                </button>
              </td>
              <td className="n">{formatMs(r.selfMs)}</td>
              <td className="n">{formatPct(r.share)}</td>
              <td className="n">{formatMs(r.span.startMs)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {all.length > rows.length && (
        <p className="caption">
          The {MAX_ROWS} largest of {all.length} spans on the path; the waterfall marks them all.
        </p>
      )}
    </div>
  );
}
