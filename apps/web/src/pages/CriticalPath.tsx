import { useMemo } from 'react';
import { Link, useSearchParams } from 'react-router';
import {
  DivergingView,
  formatCount,
  formatMs,
  formatPct,
  layoutDiverging,
} from '@tailscope/charts';
import { WithRange } from '../components/Guards';
import { Panel } from '../components/Panel';
import { ChartBox } from '../components/ChartBox';
import { Empty, ErrorState, Loading } from '../components/states';
import { requestKey } from '../api/endpoints';
import {
  BANDS,
  fetchCriticalPath,
  type CriticalPath as CriticalPathData,
  type CriticalPathBand,
} from '../api/traces';
import type { TimeRange } from '../state/filters';
import { useResource } from '../state/use-resource';
import { tracesSearch } from '../state/trace-filters';
import { RootPicker } from './critical-path/RootPicker';

/** Shown at most in the chart; the table lists every entry. */
const CHART_ROWS = 15;

function Exemplars({ label, ids }: { label: string; ids: readonly string[] }) {
  if (ids.length === 0) return null;
  return (
    <span data-testid={`exemplars-${label}`}>
      {label} examples:{' '}
      {ids.map((id, i) => (
        <span key={id}>
          {i > 0 && ', '}
          <Link className="mono" to={`/traces/${id}`}>
            {id.slice(0, 8)}
          </Link>
        </span>
      ))}
    </span>
  );
}

type PickRoot = (root: { service: string; operation: string }) => void;

function Answer({ data, onPickRoot }: { data: CriticalPathData; onPickRoot: PickRoot }) {
  const rows = useMemo(
    () =>
      data.entries.slice(0, CHART_ROWS).map((e) => ({
        key: `${e.service}\u0000${e.operation}`,
        label: `${e.service} ${e.operation}`,
        typicalMs: e.typicalMs,
        slowMs: e.slowMs,
        deltaMs: e.deltaMs,
      })),
    [data],
  );
  if (data.requests === 0)
    return (
      <>
        <RootPicker data={data} onPick={onPickRoot} />
        <Empty title="No request in the range">
          <p>{data.warning ?? 'Widen the time range.'}</p>
        </Empty>
      </>
    );
  const top = data.entries[0];
  const slowLink = tracesSearch({
    service: data.service,
    operation: data.operation,
    minDurationMs: Math.floor(data.slow.fromMs),
    order: 'slowest',
  });
  const typicalLink = tracesSearch({
    service: data.service,
    operation: data.operation,
    minDurationMs: Math.floor(data.typical.fromMs),
    maxDurationMs: Math.ceil(data.typical.toMs),
  });
  return (
    <>
      <RootPicker data={data} onPick={onPickRoot} />
      <p
        className={`verdict${data.trusted === false ? ' independent' : ''}`}
        data-testid="critical-path-summary"
      >
        <strong>
          {data.service}: {data.operation}
        </strong>{' '}
        — {formatCount(data.requests)} requests; slow band ≥ {formatMs(data.slow.fromMs)} (
        {formatCount(data.slow.requests)}), typical {formatMs(data.typical.fromMs)}–
        {formatMs(data.typical.toMs)} ({formatCount(data.typical.requests)}).
        {top &&
          ` The tail's extra time goes mostly to ${top.service} ${top.operation} (${formatMs(top.deltaMs)} more per slow request).`}
        {data.warning !== undefined && (
          <>
            {' '}
            <strong data-testid="critical-path-warning">Not to be trusted: {data.warning}.</strong>
          </>
        )}
      </p>
      <p className="caption">
        Sampled: {formatCount(data.slow.sampled ?? data.slow.requests)} slow and{' '}
        {formatCount(data.typical.sampled ?? data.typical.requests)} typical traces.{' '}
        <Exemplars label="slow" ids={data.exemplars?.slow ?? []} />
        {' · '}
        <Exemplars label="typical" ids={data.exemplars?.typical ?? []} />
        {' · '}
        <Link to={{ pathname: '/traces', search: slowLink }}>all slow requests</Link>
        {' · '}
        <Link to={{ pathname: '/traces', search: typicalLink }}>all typical requests</Link>
      </p>
      <Panel
        id="critical-path-chart"
        title="Where the tail's time goes"
        hint="mean critical-path time per request, typical (left) against slow (right)"
      >
        <ChartBox minWidth={560}>
          {(w) => (
            <DivergingView
              title="Critical path, slow vs typical"
              layout={layoutDiverging(rows, w)}
            />
          )}
        </ChartBox>
      </Panel>
      <Panel id="critical-path-entries" title="Every operation on the path">
        <div className="table-wrap">
          <table data-testid="critical-path-entries">
            <thead>
              <tr>
                <th>Service: operation</th>
                <th className="n">Slow (mean)</th>
                <th className="n">Typical (mean)</th>
                <th className="n">Δ</th>
                <th className="n">Slow share</th>
                <th className="n">Typical share</th>
              </tr>
            </thead>
            <tbody>
              {data.entries.map((e) => (
                <tr key={`${e.service}\u0000${e.operation}`}>
                  <td>
                    {e.service}: {e.operation}
                  </td>
                  <td className="n">{formatMs(e.slowMs)}</td>
                  <td className="n">{formatMs(e.typicalMs)}</td>
                  <td className="n">{formatMs(e.deltaMs)}</td>
                  <td className="n">{formatPct(e.slowShare)}</td>
                  <td className="n">{formatPct(e.typicalShare)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </Panel>
    </>
  );
}

function Load(props: {
  range: TimeRange;
  rangeKey: string;
  service: string | undefined;
  operation: string | undefined;
  band: CriticalPathBand;
  onPickRoot: PickRoot;
}) {
  const { range, rangeKey, onPickRoot, ...q } = props;
  const res = useResource(requestKey('criticalpath', { rangeKey, ...q }), (signal) =>
    fetchCriticalPath(range, q, signal),
  );
  if (res.state === 'error') return <ErrorState error={res.error} what="the critical path" />;
  if (res.state !== 'ready') return <Loading label="Computing critical paths" />;
  return <Answer data={res.data} onPickRoot={onPickRoot} />;
}

/** The aggregated critical path of one root operation: slow requests against typical ones. */
export function CriticalPath() {
  const [params, setParams] = useSearchParams();
  const raw = params.get('band');
  const band: CriticalPathBand = BANDS.find((b) => b === raw) ?? 'p99';
  const service = params.get('service') ?? undefined;
  const operation = params.get('operation') ?? undefined;
  const setBand = (b: CriticalPathBand) => {
    setParams((p) => {
      const n = new URLSearchParams(p);
      n.set('band', b);
      return n;
    });
  };
  return (
    <>
      <div className="page-head">
        <h1>Critical path</h1>
        <p>
          What makes slow requests slow: per operation on the critical path, its mean time in slow
          requests against typical ones (p40–p60). Default: the busiest request root operation.
        </p>
      </div>
      <div
        className="panel segmented"
        role="group"
        aria-label="Slow band"
        style={{ marginBottom: 16 }}
      >
        {BANDS.map((b) => (
          <button
            key={b}
            type="button"
            aria-pressed={b === band}
            onClick={() => {
              setBand(b);
            }}
          >
            above {b}
          </button>
        ))}
      </div>
      <WithRange>
        {(r) => (
          <div className="grid">
            <Load
              range={r.range}
              rangeKey={r.key}
              service={service === '' ? undefined : service}
              operation={operation === '' ? undefined : operation}
              band={band}
              onPickRoot={(root) => {
                setParams((p) => {
                  const n = new URLSearchParams(p);
                  n.set('service', root.service);
                  n.set('operation', root.operation);
                  return n;
                });
              }}
            />
          </div>
        )}
      </WithRange>
    </>
  );
}
