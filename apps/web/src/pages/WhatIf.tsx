import { useEffect, useMemo, useRef, useState } from 'react';
import { DEFAULT_WHATIF_SEED } from '@tailscope/contracts';
import { useSearchParams } from 'react-router';
import type { PolicyKind } from '@tailscope/analysis';
import { WithOperation } from '../components/Guards';
import { Empty, ErrorState, Loading } from '../components/states';
import { formatCount, formatMs } from '@tailscope/charts';
import type { FanoutOp } from '../api/contracts';
import type { TimeRange } from '../state/filters';
import { useResource } from '../state/use-resource';
import { operationLabel } from '../model/operations';
import { useLeafData, useOpenExample, type LeafData } from '../whatif/use-leaves';
import { leafClient } from '../whatif/leaf-client';
import { FULL_SAMPLES, FAST_SAMPLES, useWhatIf } from '../whatif/use-whatif';
import { prefetchRequestWhatIf } from '../api/whatif';
import { edgeOf, firstWhatIf, knobContextOf } from '../whatif/first-ask';
import {
  knobsFor,
  policyOf,
  readPolicyState,
  writePolicyState,
  type KnobContext,
  type PolicyState,
} from '../whatif/knobs';
import { PolicyControls } from '../whatif/Knobs';
import { Results } from './whatif/Results';
import { WholeRequest } from './whatif/WholeRequest';

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

function Simulator({ op, leaves, range }: { op: FanoutOp; leaves: LeafData; range: TimeRange }) {
  const [params, setParams] = useSearchParams();
  const ctx: KnobContext = useMemo(() => knobContextOf(op), [op]);
  const [state, setState] = useState<PolicyState>(() => readPolicyState(params, ctx));
  const knobs = useMemo(() => knobsFor(state.kind, ctx), [state.kind, ctx]);
  const policy = useMemo(() => policyOf(state, knobs), [state, knobs]);
  const seed = Number(params.get('seed') ?? DEFAULT_WHATIF_SEED) || DEFAULT_WHATIF_SEED;
  // When the page opened, read once (the clock is not read during later renders).
  const [openedAt] = useState(() => performance.now());
  const askedAt = useRef(openedAt);
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
            sampleOf={leaves.info.sampled ? op.requests : undefined}
            onPickMs={(ms) => {
              example.open({ nearMs: ms });
            }}
          />
        )}
        <WholeRequest edge={edgeOf(op)} range={range} policy={policy} seed={seed} />
        <p
          className="timing"
          data-testid="whatif-timing"
          data-update-ms={timing?.updateMs}
          data-simulate-ms={timing?.simulateMs}
        >
          {formatCount(leaves.info.fanouts)} recorded requests
          {leaves.info.sampled &&
            ` (a uniform sample of ${formatCount(op.requests)}: intervals are of the sample)`}
          , {formatCount(leaves.info.calls)} calls on {formatCount(leaves.info.hosts)} hosts
          (fetched in {formatMs(leaves.info.fetchMs)}).{' '}
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
  // The whole-request answer for the controls as the URL sets them (the simulator's first
  // state), asked beside the leaf calls rather than after them (prefetchRequestWhatIf).
  const [params] = useSearchParams();
  const first = useMemo(
    () => firstWhatIf(op, params),
    // Only when the page opens on an operation and range: later URL writes follow the controls.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [op, range],
  );
  // Leaf calls already in (kept from an earlier page): the panel mounted with this render and
  // asked itself (a child's effect runs first), so asking ahead would ask twice.
  const waiting = leaves.state !== 'ready';
  useEffect(() => {
    if (waiting && op.parentService !== '')
      prefetchRequestWhatIf(range, edgeOf(op), first.policy, first.seed);
    // Asked when the page opens on an operation and range, not again when the leaves arrive.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [op, range, first]);
  if (leaves.state === 'error')
    return <ErrorState error={leaves.error} what="the recorded leaf calls" />;
  if (leaves.state !== 'ready')
    return <Loading height={360} label="Loading recorded calls into the simulator" />;
  if (leaves.data.info.fanouts === 0)
    return <Empty title="No recorded fan-outs of this operation in the range" />;
  return <Simulator key={leaves.data.key} op={op} leaves={leaves.data} range={range} />;
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
