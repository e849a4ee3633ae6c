import { formatCount } from '@tailscope/charts';
import { fetchEdges, requestKey } from '../api/endpoints';
import type { TimeRange } from '../state/filters';
import { useResource } from '../state/use-resource';
import { edgeRows } from '../model/structure';
import { QUANTITIES } from '../model/definitions';
import { skewNote } from '../model/skew-note';
import { Panel } from './Panel';
import { ErrorState, Loading } from './states';

/** Every caller -> callee edge in the range (GET /api/v1/edges) and how its calls ran. */
export function EdgesTable({ range, rangeKey }: { range: TimeRange; rangeKey: string }) {
  const edges = useResource(requestKey('edges', { range: rangeKey }), (signal) =>
    fetchEdges(range, signal),
  );
  return (
    <Panel id="edges" title="Calls between operations" hint="every caller → callee edge">
      {edges.state === 'error' ? (
        <ErrorState error={edges.error} what="the edges" />
      ) : edges.state !== 'ready' ? (
        <Loading height={120} label="Loading edges" />
      ) : edges.data === null ? (
        <p className="caption" data-testid="edges-unavailable">
          This server does not offer <code>/api/v1/edges</code> yet: update Tailscope to see every
          edge and how its calls ran.
        </p>
      ) : edges.data.edges.length === 0 ? (
        <p className="caption">{edges.data.hint ?? 'No calls between operations in this range.'}</p>
      ) : (
        <>
          <div className="table-wrap">
            <table data-testid="edges-table">
              <thead>
                <tr>
                  <th>Caller</th>
                  <th>Callee</th>
                  <th className="n">Requests</th>
                  <th className="n">Calls / request p50 / max</th>
                  <th>Structure</th>
                  <th className="n">Concurrency p50 / max</th>
                  <th className="n" title={QUANTITIES.callLatency.definition}>
                    Call p50
                  </th>
                  <th className="n" title={QUANTITIES.callLatency.definition}>
                    {QUANTITIES.callLatency.name}
                  </th>
                  <th className="n">Share of caller p50</th>
                </tr>
              </thead>
              <tbody>
                {edgeRows(edges.data.edges).map((e) => (
                  <tr key={e.key}>
                    <td>{e.from}</td>
                    <td>{e.to}</td>
                    <td className="n">{e.requests}</td>
                    <td className="n">{e.callsPerRequest}</td>
                    <td>{e.structure}</td>
                    <td className="n">{e.concurrency}</td>
                    <td className="n">{e.callP50}</td>
                    <td className="n">{e.callP99}</td>
                    <td className="n">{e.shareP50}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <p className="caption">
            {formatCount(edges.data.duplicates)} duplicated spans counted once
            {skewNote(edges.data.skew) !== null && `; ${skewNote(edges.data.skew) ?? ''}`}.
          </p>
        </>
      )}
    </Panel>
  );
}
