import { useId, useMemo, useState } from 'react';
import { useSearchParams } from 'react-router';
import { WithOperation } from '../components/Guards';
import { Panel } from '../components/Panel';
import { ChartBox } from '../components/ChartBox';
import { Empty, ErrorState, Loading } from '../components/states';
import { ForestView } from '../charts/forest/ForestView';
import { layoutForest } from '../charts/forest/layout';
import { HeatmapChart } from '../charts/heatmap/HeatmapChart';
import { formatCount, formatMs, formatPct, formatPValue, formatRatio } from '../charts/format';
import { fetchHosts, fetchStragglers, requestKey } from '../api/endpoints';
import { autoWindowSeconds, hostMatrix } from '../api/hosts';
import type { FanoutOp, StragglerRow, Stragglers as StragglersData } from '../api/contracts';
import type { TimeRange } from '../state/filters';
import { useResource } from '../state/use-resource';
import {
  attributeDimension,
  BASE_DIMENSIONS,
  orderRows,
  parseBy,
  ratioWithInterval,
} from '../model/stragglers';
import { operationLabel } from '../model/operations';
import { useLeafData, useOpenExample } from '../whatif/use-leaves';

function DimensionPicker({ by, setBy }: { by: string[]; setBy: (by: string[]) => void }) {
  const [draft, setDraft] = useState('');
  const id = useId();
  const attrs = by.filter((b) => b.startsWith('attr:'));
  const add = () => {
    const d = attributeDimension(draft);
    if (d !== null && !by.includes(d)) setBy([...by, d]);
    setDraft('');
  };
  return (
    <div className="attrs">
      <div className="field">
        <span>Attribute by</span>
        <div className="segmented" role="group" aria-label="Dimensions">
          {BASE_DIMENSIONS.map((d) => {
            const on = by.includes(d.key);
            return (
              <button
                key={d.key}
                type="button"
                aria-pressed={on}
                onClick={() => {
                  setBy(on ? by.filter((b) => b !== d.key) : [...by, d.key]);
                }}
              >
                {d.label}
              </button>
            );
          })}
        </div>
      </div>
      <form
        className="attrs"
        onSubmit={(e) => {
          e.preventDefault();
          add();
        }}
      >
        <label className="field" htmlFor={id}>
          <span>Any attribute key</span>
          <input
            id={id}
            type="text"
            placeholder="e.g. deploy.zone"
            value={draft}
            onChange={(e) => {
              setDraft(e.target.value);
            }}
          />
        </label>
        <button type="submit">Add</button>
      </form>
      {attrs.length > 0 && (
        <div className="chips">
          {attrs.map((a) => (
            <span className="chip" key={a}>
              {a.slice(5)}
              <button
                type="button"
                aria-label={`Remove ${a.slice(5)}`}
                onClick={() => {
                  setBy(by.filter((b) => b !== a));
                }}
              >
                ×
              </button>
            </span>
          ))}
        </div>
      )}
    </div>
  );
}

function Summary({ data }: { data: StragglersData }) {
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
            .join('; ')}.`}
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
      <Summary data={res.data} />
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
          <Empty title="No tail stragglers in this range" />
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
          0.05 (Benjamini-Hochberg over every value tested) and a ratio above 1.
        </p>
      </Panel>
      <Panel id="attribution" title="Attribution table">
        <AttributionTable rows={rows} />
      </Panel>
      <HostHeatmap
        {...props}
        causes={new Set(rows.filter((r) => r.cause && r.dimension === 'host').map((r) => r.value))}
        open={example.open}
      />
    </>
  );
}

const WINDOWS = [
  { v: '', label: 'auto (about 90 windows)' },
  { v: '1', label: '1 s' },
  { v: '10', label: '10 s' },
  { v: '30', label: '30 s' },
  { v: '60', label: '1 min' },
  { v: '300', label: '5 min' },
];

function HostHeatmap({
  op,
  range,
  rangeKey,
  causes,
  open,
}: {
  op: FanoutOp;
  range: TimeRange;
  rangeKey: string;
  causes: ReadonlySet<string>;
  open: (q: { host: string; fromMs?: number; toMs?: number }) => void;
}) {
  const [params, setParams] = useSearchParams();
  const win = params.get('windowSeconds') ?? '';
  const seconds = win === '' ? autoWindowSeconds(range.toMs - range.fromMs) : Number(win);
  const key = requestKey('hosts', { rangeKey, op: operationLabel(op), seconds });
  const res = useResource(key, (signal) => fetchHosts(range, op, seconds, signal));
  const matrix = useMemo(() => (res.state === 'ready' ? hostMatrix(res.data) : null), [res]);
  const id = useId();
  return (
    <Panel
      id="heatmap"
      title="Host latency over time"
      hint="p99 per host and window; a bad episode shows as a hot band. Click a cell to open a request."
      right={
        <label
          className="field"
          htmlFor={id}
          style={{ flexDirection: 'row', alignItems: 'center', gap: 6 }}
        >
          <span>Window</span>
          <select
            id={id}
            value={win}
            onChange={(e) => {
              setParams((p) => {
                const n = new URLSearchParams(p);
                if (e.target.value === '') n.delete('windowSeconds');
                else n.set('windowSeconds', e.target.value);
                return n;
              });
            }}
          >
            {WINDOWS.map((w) => (
              <option key={w.v} value={w.v}>
                {w.label}
              </option>
            ))}
          </select>
        </label>
      }
    >
      {res.state === 'error' ? (
        <ErrorState error={res.error} what="host latency windows" />
      ) : res.state !== 'ready' || matrix === null ? (
        <Loading height={260} label="Loading host windows" />
      ) : matrix.windows === 0 ? (
        <Empty title="No host windows in this range" />
      ) : (
        <>
          <ChartBox minWidth={480}>
            {(w) => <HeatmapChart matrix={matrix} width={w} onPick={open} highlight={causes} />}
          </ChartBox>
          {res.data.episodes.length > 0 && (
            <p className="caption" data-testid="episodes">
              Episodes:{' '}
              {res.data.episodes
                .slice(0, 6)
                .map(
                  (e) =>
                    `${e.host} ${formatMs(e.endMs - e.startMs)} at p99 ${formatMs(e.worstP99Ms)} (fleet ${formatMs(e.fleetP99Ms)})`,
                )
                .join('; ')}
            </p>
          )}
        </>
      )}
    </Panel>
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
