import { useMemo } from 'react';
import { Link, useNavigate } from 'react-router';
import { formatCount, formatMs, layoutServiceMap, ServiceMapView } from '@tailscope/charts';
import { WithRange } from '../components/Guards';
import { Panel } from '../components/Panel';
import { ChartBox } from '../components/ChartBox';
import { Empty, ErrorState, Loading } from '../components/states';
import { ApiError } from '../api/client';
import { requestKey } from '../api/endpoints';
import { fetchEdgesMap, toMapEdges, type EdgesMap } from '../api/edges-map';
import { FILTER_KEYS, type TimeRange } from '../state/filters';
import { useResource } from '../state/use-resource';
import { QUANTITIES } from '../model/definitions';

/** The shared range of the current URL with an edge selected: the Fan-outs page's filters. */
export function edgeSearch(
  e: { parentService: string; leafService: string; leafOperation?: string },
  current: string = typeof window === 'undefined' ? '' : window.location.search,
): string {
  const src = new URLSearchParams(current);
  const out = new URLSearchParams();
  for (const k of FILTER_KEYS) {
    const v = src.get(k);
    if (v !== null && k !== 'parentService' && k !== 'leafService' && k !== 'leafOperation')
      out.set(k, v);
  }
  out.set('parentService', e.parentService);
  out.set('leafService', e.leafService);
  if (e.leafOperation !== undefined) out.set('leafOperation', e.leafOperation);
  out.sort();
  return `?${out.toString()}`;
}

function MapPanel({ data }: { data: EdgesMap }) {
  const navigate = useNavigate();
  const edges = useMemo(() => toMapEdges(data), [data]);
  if (edges.length === 0)
    return (
      <Empty title="No calls between services in this range">
        <p>{data.hint ?? 'Pick a wider range, or send traces of services that call each other.'}</p>
      </Empty>
    );
  return (
    <ChartBox minWidth={560}>
      {(w) => (
        <ServiceMapView
          layout={layoutServiceMap(edges, w)}
          onOpen={(e) => {
            void navigate({ pathname: '/fanouts', search: edgeSearch(e) });
          }}
        />
      )}
    </ChartBox>
  );
}

function EdgeTable({ data }: { data: EdgesMap }) {
  const seconds = Math.max(1e-3, (data.to - data.from) / 1000);
  const rows = [...data.edges].sort((a, b) => (b.calls ?? b.requests) - (a.calls ?? a.requests));
  return (
    <div className="table-wrap">
      <table data-testid="map-edges">
        <thead>
          <tr>
            <th>Caller</th>
            <th>Callee</th>
            <th className="n">Calls/s</th>
            <th className="n" title={QUANTITIES.callLatency.definition}>
              {QUANTITIES.callLatency.name}
            </th>
            <th>Structure</th>
            <th className="n">Calls per request p50 / max</th>
          </tr>
        </thead>
        <tbody>
          {rows.slice(0, 50).map((e) => (
            <tr
              key={`${e.parentService}:${e.parentOperation}->${e.leafService}:${e.leafOperation}`}
            >
              <td>{`${e.parentService} ${e.parentOperation}`}</td>
              <td>
                <Link to={{ pathname: '/fanouts', search: edgeSearch(e) }}>
                  {`${e.leafService} ${e.leafOperation}`}
                </Link>
              </td>
              <td className="n">{((e.calls ?? e.requests) / seconds).toFixed(2)}</td>
              <td className="n">{formatMs(e.callLatency.p99)}</td>
              <td>
                <span className="tag">{e.structure}</span>
              </td>
              <td className="n">
                {formatCount(e.callsPerRequest.p50)} / {formatCount(e.callsPerRequest.max)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function MapBody({ range, rangeKey }: { range: TimeRange; rangeKey: string }) {
  const res = useResource(requestKey('service-map', { rangeKey }), (signal) =>
    fetchEdgesMap(range, signal),
  );
  if (res.state === 'error') {
    if (res.error instanceof ApiError && res.error.status === 404)
      return (
        <Panel id="service-map" title="Service map">
          <Empty title="This server does not offer /api/v1/edges">
            <p>
              The service map reads caller → callee edges from <code>GET /api/v1/edges</code>, which
              this Tailscope server does not have yet. Update the server to see the map.
            </p>
          </Empty>
        </Panel>
      );
    return <ErrorState error={res.error} what="the service map" />;
  }
  if (res.state !== 'ready') return <Loading label="Reading calls between services" />;
  return (
    <>
      <Panel
        id="service-map"
        title="Service map"
        hint="caller → callee; width follows calls/s. Click an edge to open its fan-outs."
      >
        <MapPanel data={res.data} />
      </Panel>
      <Panel id="map-edges" title="Edges by operation" hint="busiest first">
        <EdgeTable data={res.data} />
      </Panel>
    </>
  );
}

export function ServiceMap() {
  return (
    <>
      <div className="page-head">
        <h1>Service map</h1>
        <p>Which service calls which, how often, how slowly, and how the calls are shaped.</p>
      </div>
      <WithRange>
        {(r) => (
          <div className="grid">
            <MapBody range={r.range} rangeKey={r.key} />
          </div>
        )}
      </WithRange>
    </>
  );
}
