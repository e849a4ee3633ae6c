import { useId, type ReactNode } from 'react';
import { POLICY_KINDS, POLICY_SPECS, type PolicyKind } from '@tailscope/analysis';
import { formatMs } from '@tailscope/charts';
import {
  fromPosition,
  SLIDER_STEPS,
  toPosition,
  type Knob,
  type PolicyState,
  type Unit,
} from './knobs';

const POLICY_LABELS: Record<PolicyKind, string> = {
  hedge: 'Hedged requests',
  tied: 'Tied requests',
  probation: 'Latency-induced probation',
  'good-enough': 'Good enough',
  canary: 'Canary requests',
  'sync-background': 'Synchronized background',
  pool: 'Pool size',
  'avoid-hosts': 'Avoid hosts',
};

function formatKnob(unit: Unit, v: number): string {
  switch (unit) {
    case 'ms':
      return formatMs(v);
    case 's':
      return `${v} s`;
    case 'percentile':
      return `p${v}`;
    case 'share':
      return `${Number((v * 100).toPrecision(3))}%`;
    case 'factor':
      return `×${v}`;
    case 'count':
      return String(v);
  }
}

function Slider({
  k,
  value,
  onChange,
  disabled,
}: {
  k: Knob;
  value: number;
  onChange: (v: number) => void;
  disabled?: boolean;
}) {
  const id = useId();
  const discrete = k.unit === 'count' && !k.log;
  return (
    <div className="slider">
      <label htmlFor={id}>{k.label}</label>
      <output htmlFor={id} data-knob={k.name}>
        {formatKnob(k.unit, value)}
      </output>
      <input
        id={id}
        type="range"
        data-knob={k.name}
        disabled={disabled}
        min={discrete ? k.min : 0}
        max={discrete ? k.max : SLIDER_STEPS}
        step={discrete ? k.step : 1}
        value={discrete ? value : toPosition(k, value)}
        aria-valuetext={formatKnob(k.unit, value)}
        onChange={(e) => {
          const raw = Number(e.target.value);
          onChange(discrete ? raw : fromPosition(k, raw));
        }}
      />
      {k.description !== '' && <span className="desc">{k.description}</span>}
    </div>
  );
}

function KnobRow({
  k,
  state,
  set,
}: {
  k: Knob;
  state: PolicyState;
  set: (s: PolicyState) => void;
}) {
  const value = state.values[k.name] ?? k.initial;
  const change = (v: number) => {
    set({ ...state, values: { ...state.values, [k.name]: v } });
  };
  if (k.optional === true) {
    const on = state.enabled[k.name] === true;
    return (
      <div>
        <label style={{ display: 'flex', gap: 6, alignItems: 'center', fontSize: 13 }}>
          <input
            type="checkbox"
            checked={on}
            onChange={(e) => {
              set({ ...state, enabled: { ...state.enabled, [k.name]: e.target.checked } });
            }}
          />
          Use “{k.label.toLowerCase()}”
        </label>
        {on && <Slider k={k} value={value} onChange={change} />}
      </div>
    );
  }
  return <Slider k={k} value={value} onChange={change} />;
}

function GroupRow({
  knobs,
  state,
  set,
}: {
  knobs: Knob[];
  state: PolicyState;
  set: (s: PolicyState) => void;
}) {
  const group = knobs[0]?.group ?? '';
  const chosen = knobs.find((k) => k.name === state.chosen[group]) ?? knobs[0];
  if (!chosen) return null;
  return (
    <div className="controls">
      <div className="segmented" role="group" aria-label="Delay by">
        {knobs.map((k) => (
          <button
            key={k.name}
            type="button"
            aria-pressed={k.name === chosen.name}
            onClick={() => {
              set({ ...state, chosen: { ...state.chosen, [group]: k.name } });
            }}
          >
            {k.unit === 'percentile' ? 'percentile' : k.unit === 'ms' ? 'fixed ms' : 'extra load'}
          </button>
        ))}
      </div>
      <KnobRow k={chosen} state={state} set={set} />
    </div>
  );
}

function KnobList({
  knobs,
  state,
  set,
}: {
  knobs: Knob[];
  state: PolicyState;
  set: (s: PolicyState) => void;
}) {
  const groups = new Map<string, Knob[]>();
  const out: ReactNode[] = [];
  for (const k of knobs) {
    if (k.group === undefined) {
      out.push(<KnobRow key={k.name} k={k} state={state} set={set} />);
      continue;
    }
    const g = groups.get(k.group);
    if (g) g.push(k);
    else {
      const list = [k];
      groups.set(k.group, list);
      out.push(<GroupRow key={`g:${k.group}`} knobs={list} state={state} set={set} />);
    }
  }
  return <>{out}</>;
}

/** Policy choice and its sliders. `set` gets every change; the page keeps it in the URL. */
export function PolicyControls({
  knobs,
  state,
  set,
  onKind,
}: {
  knobs: Knob[];
  state: PolicyState;
  set: (s: PolicyState) => void;
  onKind: (k: PolicyKind) => void;
}) {
  const id = useId();
  const primary = knobs.filter((k) => k.primary === true);
  const more = knobs.filter((k) => k.primary !== true);
  return (
    <div className="controls">
      <label className="field" htmlFor={id}>
        <span>Policy</span>
        <select
          id={id}
          data-testid="policy"
          value={state.kind}
          onChange={(e) => {
            onKind(e.target.value as PolicyKind);
          }}
        >
          {POLICY_KINDS.map((k) => (
            <option key={k} value={k}>
              {POLICY_LABELS[k]}
            </option>
          ))}
        </select>
      </label>
      <p className="caption" style={{ marginTop: 0 }}>
        {POLICY_SPECS[state.kind].description}
      </p>
      <KnobList knobs={primary} state={state} set={set} />
      {more.length > 0 && (
        <details>
          <summary>More parameters</summary>
          <div className="controls" style={{ marginTop: 10 }}>
            <KnobList knobs={more} state={state} set={set} />
          </div>
        </details>
      )}
    </div>
  );
}
