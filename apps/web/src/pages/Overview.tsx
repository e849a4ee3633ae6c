import { Link, useNavigate } from 'react-router';
import { OVERVIEW_CAUSE_LEAVES, STRAGGLER_DIMENSIONS } from '@tailscope/contracts';
import { utcFormat } from 'd3-time-format';
import { WithRange } from '../components/Guards';
import { Card, Panel } from '../components/Panel';
import { ChartBox } from '../components/ChartBox';
import { Empty, ErrorState, Loading, NoFanouts } from '../components/states';
import {
  DumbbellView,
  layoutDumbbell,
  formatCount,
  formatMs,
  formatPct,
  formatRate,
  formatRatio,
} from '@tailscope/charts';
import { useFanoutsAnswer, useOperations } from '../state/use-operations';
import { useResource } from '../state/use-resource';
import { fetchStragglers, requestKey } from '../api/endpoints';
import type { FanoutOp } from '../api/contracts';
import { distinctLeaves, topCauses } from '../model/causes';
import { nanoToMs, type TimeRange } from '../state/filters';
import { operationId, operationLabel, tailAmplification, verdictKind } from '../model/operations';
import { QUANTITIES } from '../model/definitions';
import { opSearch } from './links';
import { WorstEpisodes } from './overview/WorstEpisodes';
import { Incidents } from './overview/Incidents';

const when = utcFormat('%Y-%m-%d %H:%M:%S');

function StoreCards({
  stats,
  ops,
}: {
  stats: import('../api/contracts').Stats;
  ops: number | undefined;
}) {
  const oldest = nanoToMs(stats.oldestUnixNano);
  const newest = nanoToMs(stats.newestUnixNano);
  return (
    <div className="grid cards" data-testid="store-cards">
      <Card
        label="Spans stored"
        value={formatCount(stats.spans)}
        sub={`${formatCount(stats.traces)} traces`}
      />
      <Card label="Services" value={formatCount(stats.services)} />
      <Card
        label="Fan-out operations"
        value={ops === undefined ? '…' : formatCount(ops)}
        sub="in the time range"
      />
      <Card label="Ingest rate" value={formatRate(stats.ingestSpansPerSecond)} sub="last minute" />
      <Card
        label="Stored time range"
        value={oldest !== null && newest !== null ? formatMs(newest - oldest) : '–'}
        sub={
          oldest !== null && newest !== null
            ? `${when(new Date(oldest))} – ${when(new Date(newest))} UTC`
            : undefined
        }
      />
    </div>
  );
}

function WorstOperations({ ops }: { ops: FanoutOp[] }) {
  const navigate = useNavigate();
  const top = ops.slice(0, 8);
  return (
    <Panel
      id="worst-ops"
      title="Worst operations by tail amplification"
      hint={`${QUANTITIES.tailAmplification.name}: ${QUANTITIES.tailAmplification.definition} The chart's ${QUANTITIES.p99Ratio.name}: ${QUANTITIES.p99Ratio.definition}`}
    >
      <ChartBox>
        {(w) => (
          <DumbbellView
            title="Call p50 and p99 against request p99 per fan-out operation"
            layout={layoutDumbbell(
              top.map((o) => ({
                key: operationId(o),
                label: operationLabel(o),
                leafP50: o.table1.oneLeaf.p50,
                leafP99: o.table1.oneLeaf.p99,
                allP99: o.table1.allLeaves.p99,
              })),
              w,
            )}
            onOpen={(row) => {
              const op = top.find((o) => operationId(o) === row.key);
              if (op) void navigate({ pathname: '/fanouts', search: opSearch(op) });
            }}
          />
        )}
      </ChartBox>
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th>Operation</th>
              <th className="n">Requests</th>
              <th className="n">Width p50 / max</th>
              <th className="n">Request slower than t</th>
              <th className="n" title={QUANTITIES.tailAmplification.definition}>
                {QUANTITIES.tailAmplification.name}
              </th>
              <th>Slowness</th>
            </tr>
          </thead>
          <tbody>
            {top.map((o) => {
              const kind = verdictKind(o.amplification.verdict);
              return (
                <tr key={operationId(o)}>
                  <td>
                    <Link to={{ pathname: '/fanouts', search: opSearch(o) }}>
                      {operationLabel(o)}
                    </Link>
                  </td>
                  <td className="n">{formatCount(o.requests)}</td>
                  <td className="n">
                    {formatCount(o.width.p50)} / {formatCount(o.width.max)}
                  </td>
                  <td className="n" title={`t = ${formatMs(o.amplification.thresholdMs)}`}>
                    {formatPct(o.amplification.observedTailProbability)} (t ={' '}
                    {formatMs(o.amplification.thresholdMs)})
                  </td>
                  <td className="n">{formatRatio(tailAmplification(o))}</td>
                  <td>
                    <span className={`tag ${kind}`}>
                      {kind === 'unknown' ? o.amplification.verdict : kind}
                    </span>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </Panel>
  );
}

function TopCauses({
  ops,
  range,
  rangeKey,
}: {
  ops: FanoutOp[];
  range: TimeRange;
  rangeKey: string;
}) {
  const top = distinctLeaves(ops).slice(0, OVERVIEW_CAUSE_LEAVES);
  const key =
    top.length === 0
      ? null
      : requestKey('overview-causes', { rangeKey, ops: top.map(operationId) });
  const res = useResource(key, async (signal) => {
    const answers = await Promise.all(
      top.map(async (op) => ({
        op,
        rows: (await fetchStragglers(range, op, STRAGGLER_DIMENSIONS, signal)).rows,
      })),
    );
    return topCauses(answers);
  });
  return (
    <Panel
      id="top-causes"
      title="Top straggler causes"
      hint="host, sharing mode and background activity that make stragglers more likely (q < 0.05) and whose removal would lower the p99"
    >
      {res.state === 'error' ? (
        <ErrorState error={res.error} what="straggler attribution" />
      ) : res.state !== 'ready' ? (
        <Loading height={120} />
      ) : res.data.length === 0 ? (
        <Empty title="No cause stands out">
          <p>
            No host, sharing mode or background activity makes stragglers more likely at q &lt;
            0.05.
          </p>
        </Empty>
      ) : (
        <table data-testid="top-causes">
          <thead>
            <tr>
              <th>Cause</th>
              <th>Operation</th>
              <th className="n">Risk ratio</th>
              <th className="n">Share of stragglers</th>
              <th className="n">p99 would drop by</th>
            </tr>
          </thead>
          <tbody>
            {res.data.slice(0, 8).map((r) => (
              <tr key={`${operationId(r.op)}:${r.dimension}=${r.value}`} className="is-cause">
                <td>
                  <Link to={{ pathname: '/stragglers', search: opSearch(r.op) }}>
                    {r.dimension === 'sharing_mode' ? 'sharing mode' : r.dimension}:{' '}
                    <strong>{r.value}</strong>
                  </Link>
                </td>
                <td>{`${r.op.leafService} ${r.op.leafOperation}`}</td>
                <td className="n">{formatRatio(r.riskRatio)}</td>
                <td className="n">{formatPct(r.stragglerShare)}</td>
                <td className="n">{formatMs(r.p99DropMs)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Panel>
  );
}

function Services({ ops }: { ops: FanoutOp[] }) {
  const services = [...new Set(ops.flatMap((o) => [o.parentService, o.leafService]))].sort();
  if (services.length === 0) return null;
  return (
    <Panel id="services" title="Services in fan-outs" hint={`${services.length} services`}>
      <div className="chips">
        {services.map((s) => (
          <span key={s} className="tag">
            {s}
          </span>
        ))}
      </div>
    </Panel>
  );
}

/**
 * Asks for the fan-outs before any other panel asks for its answer. The page's longest chain is
 * fan-outs, then the stragglers of the worst operations (Top causes), and the server's engine
 * takes questions in the order they come: effects run child first, so without this the
 * incidents and episodes (asked by the panels) went first and the chain started behind them.
 */
function AskFanoutsFirst(): null {
  useFanoutsAnswer();
  return null;
}

export function Overview() {
  const ops = useOperations();
  const answer = useFanoutsAnswer();
  return (
    <>
      <div className="page-head">
        <h1>Overview</h1>
        <p>
          Where fan-out turns rare slow calls into slow requests, and what causes the stragglers.
        </p>
      </div>
      <WithRange>
        {(r) => (
          <div className="grid">
            <AskFanoutsFirst />
            <Incidents range={r.range} rangeKey={r.key} />
            <StoreCards stats={r.stats} ops={ops.state === 'ready' ? ops.data.length : undefined} />
            <WorstEpisodes range={r.range} rangeKey={r.key} />
            {ops.state === 'error' ? (
              <ErrorState error={ops.error} what="fan-out operations" />
            ) : ops.state !== 'ready' ? (
              <Loading label="Finding fan-outs" />
            ) : ops.data.length === 0 ? (
              <Panel id="worst-ops" title="Fan-out operations">
                <NoFanouts answer={answer.state === 'ready' ? answer.data : {}} />
              </Panel>
            ) : (
              <>
                <WorstOperations ops={ops.data} />
                <TopCauses ops={ops.data} range={r.range} rangeKey={r.key} />
                <Services ops={ops.data} />
              </>
            )}
          </div>
        )}
      </WithRange>
    </>
  );
}
