import { Link } from 'react-router';
import { tracesSearch } from '../state/trace-filters';
import { WithOperation } from '../components/Guards';
import { Panel } from '../components/Panel';
import { ChartBox } from '../components/ChartBox';
import { ErrorState, Loading } from '../components/states';
import {
  AmplificationView,
  layoutAmplification,
  CdfView,
  layoutCdf,
  formatCount,
  formatMs,
  formatPct,
  formatRatio,
} from '@tailscope/charts';
import type { FanoutOp, Quantiles } from '../api/contracts';
import type { TimeRange } from '../state/filters';
import { useOperations } from '../state/use-operations';
import { useResource, type Resource } from '../state/use-resource';
import { operationId, operationLabel, tailAmplification } from '../model/operations';
import { verdictFor } from '../model/verdict';
import { EdgesTable } from '../components/EdgesTable';
import { Structure } from './fanouts/Structure';
import { structureSummary } from '../model/structure';
import { useLeafData, useOpenExample, type LeafData } from '../whatif/use-leaves';
import type { ExampleQuery } from '../whatif/dataset';
import { leafClient } from '../whatif/leaf-client';
import { QUANTITIES } from '../model/definitions';
import { opSearch } from './links';

const ROWS: { key: keyof Quantiles; label: string }[] = [
  { key: 'p50', label: '50%ile' },
  { key: 'p95', label: '95%ile' },
  { key: 'p99', label: '99%ile' },
  { key: 'p999', label: '99.9%ile' },
];

/** Exemplar traces of a Table 1 band: the parent's requests at least that slow (#13). */
function BandTraces({ op, minMs }: { op: FanoutOp; minMs: number }) {
  if (!Number.isFinite(minMs)) return null;
  const search = tracesSearch({
    service: op.parentService,
    operation: op.parentOperation,
    minDurationMs: Math.floor(minMs),
    order: 'slowest',
  });
  return <Link to={{ pathname: '/traces', search }}>traces ≥ {formatMs(minMs)}</Link>;
}

/** The paper's Table 1: rows are percentiles across requests, columns what was waited for. */
function Table1({ op }: { op: FanoutOp }) {
  const t = op.table1;
  return (
    <Panel
      id="table1"
      title="Table 1"
      hint="finishing times across requests, from the fan-out's first call start, as in The Tail at Scale"
    >
      <table data-testid="table1">
        <thead>
          <tr>
            <th />
            <th className="n" title={QUANTITIES.oneLeafFinishing.definition}>
              One random leaf finishes
            </th>
            <th className="n">95% of leaves finish</th>
            <th className="n" title={QUANTITIES.requestAllLeaves.definition}>
              All leaves finish
            </th>
            <th>Requests</th>
          </tr>
        </thead>
        <tbody>
          {ROWS.map((r) => (
            <tr key={r.key}>
              <th scope="row">{r.label}</th>
              <td className="n">{formatMs(t.oneLeaf[r.key])}</td>
              <td className="n">{formatMs(t.p95Leaves[r.key])}</td>
              <td className="n">
                <strong>{formatMs(t.allLeaves[r.key])}</strong>
              </td>
              <td>
                <BandTraces op={op} minMs={t.allLeaves[r.key]} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="caption">
        Waiting for the slowest 5% of leaves takes{' '}
        <strong>{formatPct(t.slowest5pctShareOfP99)}</strong> of the all-leaves p99.{' '}
        {formatCount(op.requests)} requests, width p50 {formatCount(op.width.p50)}, max{' '}
        {formatCount(op.width.max)}.
        {op.width.max < 20 &&
          ' With fewer than 20 leaves, the 95% mark is the last leaf: those two columns are equal.'}
      </p>
    </Panel>
  );
}

type Open = (q: ExampleQuery) => void;

function Amplification({ op, open }: { op: FanoutOp; open: Open }) {
  return (
    <Panel
      id="amplification"
      title="Tail amplification against width"
      hint={`P(request slower than t = ${formatMs(op.amplification.thresholdMs)}, the call-latency p99 unless set)`}
    >
      {op.curve.length === 0 ? (
        <p className="caption">The API sent no curve for this operation.</p>
      ) : (
        <ChartBox>
          {(w) => (
            <AmplificationView
              title="Observed and predicted tail probability against fan-out width"
              onPickWidth={(width) => {
                open({ width });
              }}
              layout={layoutAmplification(
                op.curve,
                { thresholdMs: op.amplification.thresholdMs, widthP50: op.width.p50 },
                { width: w, height: 280 },
              )}
            />
          )}
        </ChartBox>
      )}
      <p className="caption">
        Dashed: 1 − F(t)ᴺ, the share of requests of width N that would be slow if each call were
        slow independently with the recorded call distribution F. Dots: what requests of that width
        did.
      </p>
    </Panel>
  );
}

function Distributions({
  op,
  leaves,
  example,
}: {
  op: FanoutOp;
  leaves: Resource<LeafData>;
  example: { open: Open; message: string | null };
}) {
  const key = leaves.state === 'ready' ? leaves.data.key : null;
  const curves = useResource(key === null ? null : `curves:${key}`, () =>
    leafClient.curves(key ?? ''),
  );
  const state = leaves.state === 'error' ? leaves : curves;
  return (
    <Panel
      id="cdf"
      title="Latency distributions"
      hint="click the plot to open a request with that latency"
      right={
        <button
          type="button"
          disabled={leaves.state !== 'ready'}
          onClick={() => {
            example.open({});
          }}
        >
          Open the slowest request
        </button>
      }
    >
      {state.state === 'error' ? (
        <ErrorState error={state.error} what="the leaf calls" />
      ) : state.state !== 'ready' ? (
        <Loading height={300} label="Loading leaf calls" />
      ) : (
        <ChartBox>
          {(w) => (
            <CdfView
              title="Finishing time distributions: one leaf, 95% of leaves, all leaves"
              onPickMs={(ms) => {
                example.open({ nearMs: ms });
              }}
              layout={layoutCdf(
                [
                  { key: 'one', label: 'one leaf', tone: 'base', points: state.data.oneLeaf },
                  {
                    key: 'p95',
                    label: '95% of leaves',
                    tone: 'muted',
                    points: state.data.p95Leaves,
                  },
                  {
                    key: 'all',
                    label: 'all leaves (the request)',
                    tone: 'accent',
                    points: state.data.allLeaves,
                  },
                ],
                { width: w, height: 320 },
                [
                  {
                    key: 't',
                    ms: op.amplification.thresholdMs,
                    label: `t = ${formatMs(op.amplification.thresholdMs)}`,
                  },
                ],
              )}
            />
          )}
        </ChartBox>
      )}
      {example.message !== null && <p className="caption">{example.message}</p>}
    </Panel>
  );
}

function AllOperations({ selected }: { selected: FanoutOp }) {
  const ops = useOperations();
  if (ops.state !== 'ready' || ops.data.length < 2) return null;
  return (
    <Panel id="all-ops" title="All fan-out operations" hint="worst tail amplification first">
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th>Operation</th>
              <th className="n">Requests</th>
              <th className="n">Width p50</th>
              <th>Structure</th>
              <th className="n" title={QUANTITIES.oneLeafFinishing.definition}>
                {QUANTITIES.oneLeafFinishing.name}
              </th>
              <th className="n" title={QUANTITIES.requestAllLeaves.definition}>
                {QUANTITIES.requestAllLeaves.name}
              </th>
              <th className="n" title={QUANTITIES.tailAmplification.definition}>
                {QUANTITIES.tailAmplification.name}
              </th>
            </tr>
          </thead>
          <tbody>
            {ops.data.map((o) => (
              <tr
                key={operationId(o)}
                className={operationId(o) === operationId(selected) ? 'selected' : ''}
              >
                <td>
                  <Link to={{ search: opSearch(o) }}>{operationLabel(o)}</Link>
                </td>
                <td className="n">{formatCount(o.requests)}</td>
                <td className="n">{formatCount(o.width.p50)}</td>
                <td>{structureSummary(o)?.label ?? '–'}</td>
                <td className="n">{formatMs(o.table1.oneLeaf.p99)}</td>
                <td className="n">{formatMs(o.table1.allLeaves.p99)}</td>
                <td className="n">{formatRatio(tailAmplification(o))}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Panel>
  );
}

function FanoutDetail({
  op,
  range,
  rangeKey,
}: {
  op: FanoutOp;
  range: TimeRange;
  rangeKey: string;
}) {
  // One load of the leaf calls serves the distributions and every "open an example" click.
  const leaves = useLeafData(op, range, rangeKey);
  const example = useOpenExample(leaves);
  const v = verdictFor(op);
  return (
    <div className="grid">
      <h2>{operationLabel(op)}</h2>
      <p className={`verdict ${v.kind}`} data-testid="verdict">
        <strong>{v.headline}.</strong> {v.detail}
      </p>
      <div className="grid two">
        <Table1 op={op} />
        <Amplification op={op} open={example.open} />
      </div>
      <Structure op={op} />
      <Distributions op={op} leaves={leaves} example={example} />
      <AllOperations selected={op} />
      <EdgesTable range={range} rangeKey={rangeKey} />
    </div>
  );
}

export function Fanouts() {
  return (
    <>
      <div className="page-head">
        <h1>Fan-outs</h1>
        <p>How a request's latency grows with the number of calls it waits for.</p>
      </div>
      <WithOperation empty={(range, rangeKey) => <EdgesTable range={range} rangeKey={rangeKey} />}>
        {(op, range, rangeKey) => <FanoutDetail op={op} range={range} rangeKey={rangeKey} />}
      </WithOperation>
    </>
  );
}
