import { useEffect, useMemo, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import type { PolicyKind, WhatIfResult } from '@tailscope/analysis';
import { WithOperation } from '../components/Guards';
import { Card, Panel } from '../components/Panel';
import { ChartBox } from '../components/ChartBox';
import { Empty, ErrorState, Loading } from '../components/states';
import { PercentileBarsView } from '../charts/percentile-bars/PercentileBarsView';
import { layoutPercentileBars } from '../charts/percentile-bars/layout';
import { CdfView } from '../charts/cdf/CdfView';
import { layoutCdf, type CdfSeries } from '../charts/cdf/layout';
import { formatChange, formatCount, formatMs, formatPct } from '../charts/format';
import type { FanoutOp } from '../api/contracts';
import type { TimeRange } from '../state/filters';
import { useResource } from '../state/use-resource';
import { operationLabel } from '../model/operations';
import { useLeafData, useOpenExample, type LeafData } from '../whatif/use-leaves';
import { leafClient } from '../whatif/leaf-client';
import { FULL_SAMPLES, FAST_SAMPLES, useWhatIf, type WhatIfRun } from '../whatif/use-whatif';
import {
  knobsFor,
  policyOf,
  readPolicyState,
  writePolicyState,
  type KnobContext,
  type PolicyState,
} from '../whatif/knobs';
import { PolicyControls } from '../whatif/Knobs';

/** Figures the e2e test and the bench read: last slider-to-screen time, simulation time. */
interface Timings {
  updateMs: number;
  simulateMs: number;
  samples: number;
  requests: number;
}
declare global {
  interface Window {
    __tailscopeWhatIf?: Timings[];
  }
}

function Headline({ r }: { r: WhatIfResult }) {
  const b = r.baseline.p99;
  const w = r.whatIf.p99;
  return (
    <p className="verdict independent" data-testid="whatif-headline">
      <strong>
        p99 {formatMs(b)} →{' '}
        <span data-testid="whatif-p99" data-value={w.value}>
          {formatMs(w.value)}
        </span>{' '}
        ({formatChange(b, w.value)})
      </strong>{' '}
      with 95% interval {formatMs(w.low)} – {formatMs(w.high)}, over {formatCount(r.requests)}{' '}
      recorded requests.
    </p>
  );
}

function Costs({ r }: { r: WhatIfResult }) {
  return (
    <div className="cost" data-testid="whatif-costs">
      <Card label="Extra load" value={formatPct(r.extraLoad)} sub="extra calls per recorded call" />
      {r.probation && (
        <Card
          label="Capacity removed"
          value={formatPct(r.probation.capacityRemoved)}
          sub={`${r.probation.hosts.length} host${r.probation.hosts.length === 1 ? '' : 's'} on probation`}
        />
      )}
      {r.completeness && (
        <>
          <Card
            label="Answers given up"
            value={formatPct(r.completeness.lost)}
            sub="leaf answers not waited for"
          />
          <Card
            label="Complete requests"
            value={formatPct(r.completeness.requestsComplete)}
            sub="had every leaf's answer"
          />
        </>
      )}
      <Card
        label="p50 change"
        value={formatMs(r.whatIf.p50.value - r.baseline.p50)}
        sub={`${formatMs(r.baseline.p50)} → ${formatMs(r.whatIf.p50.value)}`}
      />
    </div>
  );
}

function Results({
  run,
  baselineCurve,
  onPickMs,
}: {
  run: WhatIfRun;
  baselineCurve: CdfSeries['points'] | null;
  onPickMs: (ms: number) => void;
}) {
  const r = run.answer.result;
  const whatIfSeries: CdfSeries = {
    key: 'whatif',
    label: 'what-if',
    tone: 'accent',
    points: run.answer.whatIfCurve,
  };
  const series: CdfSeries[] = [
    ...(baselineCurve
      ? [
          {
            key: 'base',
            label: 'recorded (baseline)',
            tone: 'base' as const,
            points: baselineCurve,
          },
        ]
      : []),
    whatIfSeries,
  ];
  return (
    <>
      <Headline r={r} />
      <div className="grid two">
        <Panel
          id="bars"
          title="Request latency percentiles"
          hint="baseline vs what-if, 95% bootstrap intervals"
        >
          <ChartBox>
            {(w) => (
              <PercentileBarsView
                title="Baseline and what-if request latency percentiles"
                layout={layoutPercentileBars(r.baseline, r.whatIf, w)}
              />
            )}
          </ChartBox>
        </Panel>
        <Panel
          id="whatif-cdf"
          title="Request latency distribution"
          hint="all leaves finished; click to open a recorded request"
        >
          <ChartBox>
            {(w) => (
              <CdfView
                title="Baseline and what-if request latency distribution"
                onPickMs={onPickMs}
                layout={layoutCdf(series, { width: w, height: 260 })}
              />
            )}
          </ChartBox>
        </Panel>
      </div>
      <Panel id="costs" title="What it costs">
        <Costs r={r} />
        {r.probation && r.probation.hosts.length > 0 && (
          <table style={{ marginTop: 12 }} data-testid="probation-hosts">
            <thead>
              <tr>
                <th>Host on probation</th>
                <th className="n">Time out</th>
              </tr>
            </thead>
            <tbody>
              {r.probation.hosts.map((h) => (
                <tr key={h.host}>
                  <td>{h.host}</td>
                  <td className="n">{formatMs(h.seconds * 1000)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {r.notes.length > 0 && (
          <ul className="notes">
            {r.notes.map((n) => (
              <li key={n}>{n}</li>
            ))}
          </ul>
        )}
      </Panel>
    </>
  );
}

function Simulator({ op, leaves }: { op: FanoutOp; leaves: LeafData }) {
  const [params, setParams] = useSearchParams();
  const ctx: KnobContext = useMemo(
    () => ({
      callP50: op.table1.oneLeaf.p50,
      callP99: op.table1.oneLeaf.p99,
      callP999: op.table1.oneLeaf.p999,
      requestP999: op.table1.allLeaves.p999,
    }),
    [op],
  );
  const [state, setState] = useState<PolicyState>(() => readPolicyState(params, ctx));
  const knobs = useMemo(() => knobsFor(state.kind, ctx), [state.kind, ctx]);
  const policy = useMemo(() => policyOf(state, knobs), [state, knobs]);
  const seed = Number(params.get('seed') ?? '1') || 1;
  const askedAt = useRef(performance.now());
  const urlTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const { run, error, busy } = useWhatIf(leaves.key, policy, seed, () => askedAt.current);
  const curves = useResource(`curves:${leaves.key}`, () => leafClient.curves(leaves.key));
  const [timing, setTiming] = useState<Timings | null>(null);
  // A click on the distribution opens a recorded request with about that latency.
  const example = useOpenExample({ state: 'ready', data: leaves });

  const update = (next: PolicyState) => {
    askedAt.current = performance.now();
    setState(next);
    // The URL follows the sliders, but not on every input event: history writes re-render all.
    clearTimeout(urlTimer.current);
    urlTimer.current = setTimeout(() => {
      setParams((p) => writePolicyState(p, next, knobsFor(next.kind, ctx)), { replace: true });
    }, 200);
  };
  useEffect(
    () => () => {
      clearTimeout(urlTimer.current);
    },
    [],
  );

  // Slider-to-screen time: measured after the browser painted the new result.
  useEffect(() => {
    if (!run) return;
    const id = requestAnimationFrame(() => {
      const t: Timings = {
        updateMs: performance.now() - run.askedAt,
        simulateMs: run.answer.simulateMs,
        samples: run.full ? FULL_SAMPLES : FAST_SAMPLES,
        requests: run.answer.replayed,
      };
      (window.__tailscopeWhatIf ??= []).push(t);
      setTiming(t);
    });
    return () => {
      cancelAnimationFrame(id);
    };
  }, [run]);

  return (
    <div className="whatif-layout">
      <div className="panel">
        <PolicyControls
          knobs={knobs}
          state={state}
          set={update}
          onKind={(kind: PolicyKind) => {
            update(readPolicyState(new URLSearchParams({ policy: kind }), ctx));
          }}
        />
      </div>
      <div className="grid" aria-live="polite" aria-busy={busy}>
        {error ? (
          <ErrorState error={error} what="the simulation" />
        ) : !run ? (
          <Loading height={300} label="Simulating" />
        ) : (
          <Results
            run={run}
            baselineCurve={curves.state === 'ready' ? curves.data.allLeaves : null}
            onPickMs={(ms) => {
              example.open({ nearMs: ms });
            }}
          />
        )}
        <p
          className="timing"
          data-testid="whatif-timing"
          data-update-ms={timing?.updateMs}
          data-simulate-ms={timing?.simulateMs}
        >
          {formatCount(leaves.info.fanouts)} recorded requests, {formatCount(leaves.info.calls)}{' '}
          calls on {formatCount(leaves.info.hosts)} hosts (fetched in{' '}
          {formatMs(leaves.info.fetchMs)}).{' '}
          {timing &&
            `Last update: ${timing.requests < leaves.info.fanouts ? `preview from ${formatCount(timing.requests)} of the requests, ` : ''}simulated in ${formatMs(timing.simulateMs)}, on screen ${formatMs(timing.updateMs)} after the input; intervals from ${formatCount(timing.samples)} bootstrap resamples${timing.samples < FULL_SAMPLES ? ' (all requests and more resamples once the controls rest)' : ''}.`}
          {busy && ' Simulating…'}
        </p>
      </div>
    </div>
  );
}

function WhatIfFor({ op, range, rangeKey }: { op: FanoutOp; range: TimeRange; rangeKey: string }) {
  const leaves = useLeafData(op, range, rangeKey);
  if (leaves.state === 'error')
    return <ErrorState error={leaves.error} what="the recorded leaf calls" />;
  if (leaves.state !== 'ready')
    return <Loading height={360} label="Loading recorded calls into the simulator" />;
  if (leaves.data.info.fanouts === 0)
    return <Empty title="No recorded fan-outs of this operation in the range" />;
  return <Simulator key={leaves.data.key} op={op} leaves={leaves.data} />;
}

export function WhatIf() {
  return (
    <>
      <div className="page-head">
        <h1>What-if</h1>
        <p>Replay the recorded requests under a tail-tolerance policy, in your browser.</p>
      </div>
      <WithOperation>
        {(op, range, rangeKey) => (
          <div className="grid">
            <h2>{operationLabel(op)}</h2>
            <WhatIfFor op={op} range={range} rangeKey={rangeKey} />
          </div>
        )}
      </WithOperation>
    </>
  );
}
