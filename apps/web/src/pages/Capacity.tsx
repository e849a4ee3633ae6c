import { useEffect, useMemo, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import { formatCount, formatMs } from '@tailscope/charts';
import { WithOperation } from '../components/Guards';
import { ErrorState, Loading } from '../components/states';
import type { FanoutOp } from '../api/contracts';
import { fetchCapacity, type CapacityAsk, type CapacityServiceView } from '../api/capacity';
import type { TimeRange } from '../state/filters';
import { operationLabel } from '../model/operations';
import { usePreviewAnswer, type Quality } from '../state/use-preview-answer';
import { readAsk, writeAsk } from '../capacity/ask';
import { Headline, ServicesTable } from '../capacity/Views';
import { MachineControls, TrafficSlider } from '../capacity/Controls';

/** Figures the e2e test reads: control-to-screen time of each answer shown. */
interface Timing {
  updateMs: number;
  quality: Quality;
  /** performance.now() of the input, and of the frame that shows its answer (bench:capacity-drag). */
  askedAt: number;
  shownAt: number;
}
declare global {
  interface Window {
    __tailscopeCapacity?: Timing[];
  }
}

function Predictor({ op, range }: { op: FanoutOp; range: TimeRange }) {
  const [params, setParams] = useSearchParams();
  const [ask, setAsk] = useState<CapacityAsk>(() => readAsk(params));
  const seed = Number(params.get('seed') ?? '1') || 1;
  const leaf = useMemo(
    () => ({ leafService: op.leafService, leafOperation: op.leafOperation }),
    [op],
  );
  const { state, busy, previews } = usePreviewAnswer(
    JSON.stringify([leaf, range, seed]),
    ask,
    (a: CapacityAsk, quality: Quality, signal: AbortSignal) =>
      fetchCapacity(range, leaf, a, seed, signal, quality),
  );
  // The services to give machine controls: the answer shown's (it stays shown while the next is
  // asked; the set changes with the range or operation, not with the controls).
  const services: CapacityServiceView[] =
    state.kind === 'ready' ? state.answer.capacity.services : [];
  const [timing, setTiming] = useState<Timing | null>(null);
  const urlTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  useEffect(() => {
    if (state.kind !== 'ready') return;
    // Control-to-screen time: measured after the browser painted the answer.
    const id = requestAnimationFrame(() => {
      const shownAt = performance.now();
      const t = {
        updateMs: shownAt - state.askedAt,
        quality: state.quality,
        askedAt: state.askedAt,
        shownAt,
      };
      (window.__tailscopeCapacity ??= []).push(t);
      setTiming(t);
    });
    return () => {
      cancelAnimationFrame(id);
    };
  }, [state]);
  useEffect(
    () => () => {
      clearTimeout(urlTimer.current);
    },
    [],
  );

  const update = (next: CapacityAsk) => {
    setAsk(next);
    // The URL follows the controls, but not on every input event: history writes re-render all.
    clearTimeout(urlTimer.current);
    urlTimer.current = setTimeout(() => {
      setParams((p) => writeAsk(p, next), { replace: true });
    }, 200);
  };

  return (
    <div className="whatif-layout">
      <div className="panel controls">
        <TrafficSlider
          factor={ask.factor}
          onChange={(factor) => {
            update({ ...ask, factor });
          }}
        />
        <MachineControls
          services={services}
          machines={ask.machines}
          onChange={(machines) => {
            update({ ...ask, machines });
          }}
        />
      </div>
      <div className="grid" aria-live="polite" aria-busy={busy}>
        {state.kind === 'error' ? (
          <ErrorState error={new Error(state.message)} what="the capacity prediction" />
        ) : state.kind === 'loading' ? (
          <Loading height={300} label="Fitting the capacity model to the recording" />
        ) : (
          <>
            <Headline
              answer={state.answer}
              ask={state.input}
              quality={state.quality}
              previews={previews}
            />
            <ServicesTable answer={state.answer} />
          </>
        )}
        <p className="timing" data-testid="capacity-timing" data-update-ms={timing?.updateMs}>
          {state.kind === 'ready' &&
            `${formatCount(state.answer.requests)} requests holding ${op.leafService} ${op.leafOperation} ${state.quality === 'preview' ? 're-timed (a preview sample)' : 're-timed'}.`}
          {timing &&
            ` Last update on screen ${formatMs(timing.updateMs)} after the input (${timing.quality}).`}
          {busy && ' Predicting…'}
        </p>
      </div>
    </div>
  );
}

export function Capacity() {
  return (
    <>
      <div className="page-head">
        <h1>Capacity</h1>
        <p>
          The tail at tomorrow&apos;s traffic: a queueing model of each service, fitted on the
          recording, predicts the request&apos;s latency at more load or other machine counts.
        </p>
      </div>
      <WithOperation>
        {(op, range, rangeKey) => (
          <div className="grid">
            <h2>Requests holding {operationLabel(op)}</h2>
            <Predictor key={rangeKey} op={op} range={range} />
          </div>
        )}
      </WithOperation>
    </>
  );
}
