import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { tracesSearch } from '../state/trace-filters';
import { WithOperation } from '../components/Guards';
import { Panel } from '../components/Panel';
import { ChartBox } from '../components/ChartBox';
import { Empty, ErrorState, Loading } from '../components/states';
import {
  ForestView,
  layoutForest,
  formatCount,
  formatMs,
  formatPct,
  formatPValue,
  formatRatio,
} from '@tailscope/charts';
import { fetchStragglers, requestKey } from '../api/endpoints';
import type { FanoutOp, StragglerRow, Stragglers as StragglersData } from '../api/contracts';
import type { TimeRange } from '../state/filters';
import { useResource } from '../state/use-resource';
import { forestEmptyText, orderRows, parseBy, ratioWithInterval } from '../model/stragglers';
import { operationLabel } from '../model/operations';
import { useLeafData, useOpenExample } from '../whatif/use-leaves';
import { DimensionPicker } from './stragglers/DimensionPicker';
import { HostHeatmap } from './stragglers/HostHeatmap';
import { CauseEvidence } from './stragglers/CauseEvidence';
import { MeasuredEvidence } from './stragglers/MeasuredEvidence';

function Summary({ data, op }: { data: StragglersData; op: FanoutOp }) {
  const causes = orderRows(data.rows).filter((r) => r.cause);
  return (
    <p
      className={`verdict${causes.length === 0 ? ' independent' : ''}`}
      data-testid="straggler-summary"
    >
      <strong>{formatCount(data.tailFanouts)} tail requests</strong> (all leaves slower than{' '}
      {formatMs(data.tailThresholdMs)}).{' '}
      {causes.length === 0
        ? 'No value makes a call significantly more likely to be the straggler (q < 0.05).'
        : `Causes: ${causes
            .slice(0, 4)
            .map(
              (c) =>
                `${c.dimension === 'sharing_mode' ? 'sharing mode' : c.dimension.replace(/^attr:/, '')} ${c.value} (${formatRatio(c.riskRatio)}, p99 −${formatMs(c.p99DropMs)} without it)`,
            )
            .join('; ')}.`}{' '}
      {data.sampling?.weighted === true && (
        <span className="muted" data-testid="straggler-sampling">
          Counts and shares weighted by sampling (
          {Math.round(data.sampling.spansWithoutSamplingInfo * 100)}% of spans carried no sampling
          information); the tests count stored calls.{' '}
        </span>
      )}
      {Number.isFinite(data.tailThresholdMs) && (
        <Link
          data-testid="tail-traces"
          to={{
            pathname: '/traces',
            search: tracesSearch({
              service: op.parentService,
              operation: op.parentOperation,
              minDurationMs: Math.floor(data.tailThresholdMs),
              order: 'slowest',
            }),
          }}
        >
          Tail requests as traces
        </Link>
      )}
    </p>
  );
}

function AttributionTable({ rows }: { rows: StragglerRow[] }) {
  return (
    <div className="table-wrap">
      <table data-testid="attribution">
        <thead>
          <tr>
            <th>Dimension</th>
            <th>Value</th>
            <th className="n">Calls</th>
            <th className="n">Stragglers</th>
            <th className="n">Traffic share</th>
            <th className="n">Straggler share</th>
            <th className="n">Risk ratio [95% CI]</th>
            <th className="n">p</th>
            <th className="n">q (BH)</th>
            <th className="n">p99 drop</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={`${r.dimension}=${r.value}`} className={r.cause ? 'is-cause' : ''}>
              <td>{r.dimension}</td>
              <td>
                {r.value} {r.cause && <span className="tag cause">cause</span>}
              </td>
              <td className="n">{formatCount(r.calls)}</td>
              <td className="n">{formatCount(r.stragglers)}</td>
              <td className="n">{formatPct(r.trafficShare)}</td>
              <td className="n">{formatPct(r.stragglerShare)}</td>
              <td className="n">{ratioWithInterval(r)}</td>
              <td className="n">{formatPValue(r.pValue)}</td>
              <td className="n">{formatPValue(r.qValue)}</td>
              <td className="n">{formatMs(r.p99DropMs)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const FOREST_MAX = 30;

const causeHosts = (rows: readonly StragglerRow[]): Set<string> =>
  new Set(rows.filter((r) => r.cause && r.dimension === 'host').map((r) => r.value));

function Attribution(props: { op: FanoutOp; range: TimeRange; rangeKey: string; by: string[] }) {
  const { op, range, rangeKey, by } = props;
  const [all, setAll] = useState(false);
  const leaves = useLeafData(op, range, rangeKey);
  const example = useOpenExample(leaves);
  const key =
    by.length === 0 ? null : requestKey('stragglers', { rangeKey, op: operationLabel(op), by });
  const res = useResource(key, (signal) => fetchStragglers(range, op, by.join(','), signal));
  if (by.length === 0) return <Empty title="Pick at least one dimension" />;
  if (res.state === 'error') return <ErrorState error={res.error} what="straggler attribution" />;
  if (res.state !== 'ready') return <Loading height={320} label="Attributing stragglers" />;
  const rows = orderRows(res.data.rows);
  // A row with no ratio (no calls or no stragglers on one side) has nothing to plot.
  const plotted = rows.filter((r) => !Number.isNaN(r.riskRatio));
  const shown = all ? plotted : plotted.slice(0, FOREST_MAX);
  return (
    <>
      <Summary data={res.data} op={op} />
      <Panel
        id="forest"
        title="Who makes stragglers"
        hint="risk ratio with 95% interval; click a host to open one of its slow requests"
        right={
          plotted.length > FOREST_MAX ? (
            <button
              type="button"
              onClick={() => {
                setAll(!all);
              }}
            >
              {all ? `Show the top ${FOREST_MAX}` : `Show all ${plotted.length}`}
            </button>
          ) : undefined
        }
      >
        {plotted.length === 0 ? (
          <Empty title={forestEmptyText(res.data.tailFanouts, by).title}>
            {forestEmptyText(res.data.tailFanouts, by).detail !== undefined && (
              <p>{forestEmptyText(res.data.tailFanouts, by).detail}</p>
            )}
          </Empty>
        ) : (
          <ChartBox minWidth={560}>
            {(w) => (
              <ForestView
                title="Straggler risk ratio by dimension value"
                layout={layoutForest(shown, w)}
                onOpen={(r) => {
                  example.open({ host: r.value });
                }}
                canOpen={(r) => r.dimension === 'host'}
              />
            )}
          </ChartBox>
        )}
        {example.message !== null && <p className="caption">{example.message}</p>}
        <p className="caption">
          Risk ratio: how much more likely a call with this value is to be its request's straggler
          (the last leaf to finish in a tail request) than a call without it. A cause has q &lt;
          0.05 (Benjamini-Hochberg over every value tested), a ratio above 1, tail stragglers, and a
          p99 that would drop without it.
        </p>
      </Panel>
      <Panel id="attribution" title="Attribution table">
        <AttributionTable rows={rows} />
      </Panel>
      <CauseEvidence {...props} hosts={causeHosts(rows)} />
      <MeasuredEvidence rows={rows} />
      <HostHeatmap {...props} causes={causeHosts(rows)} open={example.open} />
    </>
  );
}

export function Stragglers() {
  const [params, setParams] = useSearchParams();
  const by = parseBy(params.get('by'));
  const setBy = (next: string[]) => {
    setParams((p) => {
      const n = new URLSearchParams(p);
      n.set('by', next.join(','));
      return n;
    });
  };
  return (
    <>
      <div className="page-head">
        <h1>Stragglers</h1>
        <p>
          Which hosts, sharing modes, background activities or attributes make the last leaf late.
        </p>
      </div>
      <div className="panel" style={{ marginBottom: 16 }}>
        <DimensionPicker by={by} setBy={setBy} />
      </div>
      <WithOperation>
        {(op, range, rangeKey) => (
          <div className="grid">
            <h2>{operationLabel(op)}</h2>
            <Attribution op={op} range={range} rangeKey={rangeKey} by={by} />
          </div>
        )}
      </WithOperation>
    </>
  );
}
