import { useMemo, useState } from 'react';
import { Link, useParams } from 'react-router';
import { unpackLeafCalls } from '@tailscope/analysis';
import { Panel, Card } from '../components/Panel';
import { ChartBox } from '../components/ChartBox';
import { Empty, ErrorState, Loading } from '../components/states';
import { formatCount, formatMs } from '@tailscope/charts';
import { fetchTrace, keepSpan, prefetchSpan } from '../api/endpoints';
import { apiUrl, ApiError } from '../api/client';
import type { Trace } from '../api/contracts';
import { useResource } from '../state/use-resource';
import { traceTreeOf } from '../model/trace-tree';
import { findFanouts, type TraceFanout } from '../model/fanout';
import { rowIdOf, waterfallRows } from '../model/waterfall-rows';
import { backgroundByCall } from '../model/match-calls';
import { opSearch } from './links';
import { SelectedSpan } from './trace/SelectedSpan';
import { CriticalPathTable } from './trace/CriticalPathTable';
import { WindowedWaterfall } from './trace/WindowedWaterfall';

const TRACE_ID = /^[0-9a-f]{32}$/i;

/** Background activity per call comes from the server's leaf data for this one request. */
function useBackgrounds(
  trace: Trace | null,
  fanout: TraceFanout | undefined,
  t0Ms: number,
  totalMs: number,
) {
  const key = trace && fanout ? `bg:${trace.traceId}:${fanout.parent.span.spanId}` : null;
  return useResource(key, async (signal) => {
    if (!trace || !fanout) return new Map<string, string>();
    const url = apiUrl('leaves', {
      query: {
        leafService: fanout.leafService,
        leafOperation: fanout.leafOperation,
        from: Math.floor(t0Ms) - 1,
        to: Math.ceil(t0Ms + totalMs) + 1,
      },
    });
    const res = await fetch(url, { signal });
    if (!res.ok) throw new ApiError(res.status, `leaf data: HTTP ${res.status}`, url);
    const { calls } = unpackLeafCalls(await res.arrayBuffer());
    return backgroundByCall(calls, trace.traceId, fanout.parent.span.spanId, fanout.calls);
  });
}

function TraceView({ trace }: { trace: Trace }) {
  const tree = useMemo(() => traceTreeOf(trace.spans), [trace]);
  const fanouts = useMemo(() => findFanouts(tree), [tree]);
  const main = fanouts[0];
  const t0Ms = Number(tree.t0Ns / 1_000_000n);
  const bg = useBackgrounds(trace, main, t0Ms, tree.totalMs);
  const bgMap = bg.state === 'ready' ? bg.data : null;
  const selfById = useMemo(
    () => new Map(trace.criticalPath.map((s) => [s.spanId, s.selfMs])),
    [trace],
  );
  const critical = useMemo(() => new Set(selfById.keys()), [selfById]);
  const rows = useMemo(
    () => waterfallRows(tree, main, (c) => bgMap?.get(c.measured.span.spanId), critical),
    [tree, main, bgMap, critical],
  );
  const straggler = main ? main.calls[main.straggler] : undefined;
  const root = tree.roots[0];
  const [picked, setPicked] = useState<string | undefined>(undefined);
  const selected = tree.byId.get(picked ?? '') ?? root;
  return (
    <div className="grid">
      <div className="grid cards">
        <Card
          label="Request"
          value={root ? formatMs(root.durationMs) : '–'}
          sub={root ? `${root.span.service}: ${root.span.name}` : undefined}
        />
        <Card
          label="Spans"
          value={formatCount(trace.spans.length)}
          sub={`${fanouts.length} fan-out${fanouts.length === 1 ? '' : 's'}`}
        />
        {main && (
          <Card
            label="Fan-out width"
            value={formatCount(main.calls.length)}
            sub={`${main.leafService} ${main.leafOperation}`}
          />
        )}
        {straggler && (
          <Card
            label="Straggler"
            value={formatMs(straggler.finishMs)}
            sub={`${straggler.host} · ${straggler.sharingMode}${bgMap?.get(straggler.measured.span.spanId) && bgMap.get(straggler.measured.span.spanId) !== 'none' ? ` · during ${bgMap.get(straggler.measured.span.spanId) ?? ''}` : ''}`}
          />
        )}
      </div>
      {main && (
        <p className="caption" style={{ marginTop: 0 }}>
          <Link
            to={{
              pathname: '/stragglers',
              search: opSearch({
                parentService: main.parent.span.service,
                leafService: main.leafService,
                leafOperation: main.leafOperation,
              }),
            }}
          >
            Straggler attribution for {main.leafService} {main.leafOperation}
          </Link>
          {bg.state === 'error' && ` · background activity unavailable: ${bg.error.message}`}
        </p>
      )}
      <Panel
        id="waterfall"
        title="Waterfall"
        hint="click a row for its attributes, events and links; inner bar: the server span"
      >
        <p className="caption" data-testid="waterfall-legend" style={{ marginTop: 0 }}>
          <span className="ts-legend-swatch is-critical" />
          critical path (what held the request's end)
          <span className="ts-legend-swatch is-straggler" />
          straggler (last leaf to finish)
          <span className="ts-legend-swatch is-error" />
          error status
          {trace.truncated &&
            ' · the trace was cut at the read limit: the path covers its first spans'}
        </p>
        <ChartBox minWidth={640}>
          {(w) => (
            <WindowedWaterfall
              title={`Trace ${trace.traceId}`}
              rows={rows}
              totalMs={tree.totalMs}
              width={w}
              selected={rowIdOf(rows, selected?.span.spanId)}
              onSelect={setPicked}
            />
          )}
        </ChartBox>
      </Panel>
      {selected && (
        <Panel
          id="span"
          title="Span"
          hint="status, attributes, resource, events (with times), links"
        >
          <SelectedSpan
            trace={trace}
            span={selected}
            t0Ns={tree.t0Ns}
            selfMs={selfById.get(selected.span.spanId)}
          />
        </Panel>
      )}
      <Panel
        id="critical-path"
        title="Critical path"
        hint="walking back from the request's end through the child that finished last; async children that outlive their parent are off it"
      >
        <CriticalPathTable path={trace.criticalPath} tree={tree} onSelect={setPicked} />
      </Panel>
      {main && (
        <Panel id="calls" title="Calls by finishing time">
          <div className="table-wrap">
            <table data-testid="calls" data-background={bg.state}>
              <thead>
                <tr>
                  <th>Host</th>
                  <th>Sharing mode</th>
                  <th>Background</th>
                  <th className="n">Started at</th>
                  <th className="n">Latency</th>
                  <th className="n">Finished at</th>
                </tr>
              </thead>
              <tbody>
                {[...main.calls]
                  .sort((a, b) => b.finishMs - a.finishMs)
                  .map((c) => (
                    <tr key={c.measured.span.spanId} className={c === straggler ? 'is-cause' : ''}>
                      <td>
                        {c.host} {c === straggler && <span className="tag cause">straggler</span>}
                      </td>
                      <td>{c.sharingMode}</td>
                      <td>{bgMap ? (bgMap.get(c.measured.span.spanId) ?? '–') : '…'}</td>
                      <td className="n">{formatMs(c.measured.startMs)}</td>
                      <td className="n">{formatMs(c.measured.durationMs)}</td>
                      <td className="n">{formatMs(c.finishMs)}</td>
                    </tr>
                  ))}
              </tbody>
            </table>
          </div>
        </Panel>
      )}
    </div>
  );
}

export function TracePage() {
  const { traceId = '' } = useParams();
  const valid = TRACE_ID.test(traceId);
  const res = useResource(valid ? `trace:${traceId.toLowerCase()}` : null, async (signal) => {
    const trace = await fetchTrace(traceId, signal);
    // The root is selected by default: its details came with the summary, else they are asked
    // for now, beside the render.
    const root = traceTreeOf(trace.spans).roots[0];
    if (trace.detail === 'summary' && root) {
      if (trace.rootSpan?.spanId === root.span.spanId) keepSpan(trace.traceId, trace.rootSpan);
      else prefetchSpan(trace.traceId, root.span.spanId);
    }
    return trace;
  });
  return (
    <>
      <div className="page-head">
        <h1>Trace</h1>
        <p className="mono">{traceId}</p>
      </div>
      {!valid ? (
        <Empty title="Not a trace id">
          <p>A trace id is 32 hexadecimal digits.</p>
        </Empty>
      ) : res.state === 'error' ? (
        res.error instanceof ApiError && res.error.status === 404 ? (
          <Empty title="No such trace in the store">
            <p>It may have aged out, or not arrived yet.</p>
          </Empty>
        ) : (
          <ErrorState error={res.error} what="the trace" />
        )
      ) : res.state !== 'ready' ? (
        <Loading height={400} label="Loading the trace" />
      ) : (
        <TraceView trace={res.data} />
      )}
    </>
  );
}
