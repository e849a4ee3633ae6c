// The what-if page's policy state: which knobs are on, their values, and their place in the URL.
import { POLICY_SPECS, type PolicyKind, type WhatIfPolicy } from '@tailscope/analysis';
import { knobsFor, type Knob, type KnobContext } from './knob-table';

export { knobsFor, type Knob, type KnobContext, type Unit } from './knob-table';

export interface PolicyState {
  kind: PolicyKind;
  /** Current value of each knob. */
  values: Record<string, number>;
  /** Optional knobs switched on. */
  enabled: Record<string, boolean>;
  /** The chosen member of each group. */
  chosen: Record<string, string>;
}

/** The policy the simulator gets: chosen group members, switched-on optional knobs. */
export function policyOf(state: PolicyState, knobs: readonly Knob[]): WhatIfPolicy {
  const out: Record<string, unknown> = { kind: state.kind };
  for (const k of knobs) {
    if (k.group !== undefined && state.chosen[k.group] !== k.name) continue;
    if (k.optional === true && state.enabled[k.name] !== true) continue;
    const v = state.values[k.name];
    if (v !== undefined) out[k.name] = v;
  }
  return out as unknown as WhatIfPolicy;
}

/** Slider position (0..1000) of a value and back; log knobs spread decades evenly. */
export const SLIDER_STEPS = 1000;

export function toPosition(k: Knob, v: number): number {
  const t =
    k.log === true && k.min > 0
      ? Math.log(v / k.min) / Math.log(k.max / k.min)
      : (v - k.min) / (k.max - k.min);
  return Math.round(Math.min(1, Math.max(0, t)) * SLIDER_STEPS);
}

export function fromPosition(k: Knob, pos: number): number {
  const t = Math.min(1, Math.max(0, pos / SLIDER_STEPS));
  const raw =
    k.log === true && k.min > 0 ? k.min * (k.max / k.min) ** t : k.min + t * (k.max - k.min);
  const stepped = Math.round(raw / k.step) * k.step;
  // Float noise from the step multiply (0.30000000000000004) stays out of URLs and labels.
  return Math.min(k.max, Math.max(k.min, Number(stepped.toPrecision(6))));
}

/** URL keys: policy=, p.<name>=, by.<group>= ; an optional knob is on when its key is present. */
export function readPolicyState(params: URLSearchParams, c: KnobContext): PolicyState {
  const rawKind = params.get('policy');
  const kind: PolicyKind =
    rawKind !== null && rawKind in POLICY_SPECS ? (rawKind as PolicyKind) : 'hedge';
  const knobs = knobsFor(kind, c);
  const state: PolicyState = { kind, values: {}, enabled: {}, chosen: {} };
  for (const k of knobs) {
    const raw = params.get(`p.${k.name}`);
    const v = raw === null ? NaN : Number(raw);
    state.values[k.name] = Number.isFinite(v) ? Math.min(k.max, Math.max(k.min, v)) : k.initial;
    if (k.optional === true) state.enabled[k.name] = raw !== null;
    if (k.group !== undefined && state.chosen[k.group] === undefined) {
      const chosen = params.get(`by.${k.group}`);
      state.chosen[k.group] = knobs.some((x) => x.group === k.group && x.name === chosen)
        ? (chosen ?? k.name)
        : k.name;
    }
  }
  return state;
}

export function writePolicyState(
  base: URLSearchParams,
  s: PolicyState,
  knobs: readonly Knob[],
): URLSearchParams {
  const out = new URLSearchParams(base);
  for (const key of [...out.keys()])
    if (key.startsWith('p.') || key.startsWith('by.')) out.delete(key);
  out.set('policy', s.kind);
  for (const k of knobs) {
    if (k.optional === true && s.enabled[k.name] !== true) continue;
    if (k.group !== undefined && s.chosen[k.group] !== k.name) continue;
    const v = s.values[k.name];
    if (v !== undefined && (v !== k.initial || k.optional === true))
      out.set(`p.${k.name}`, String(v));
  }
  for (const [g, name] of Object.entries(s.chosen)) {
    const first = knobs.find((k) => k.group === g);
    if (first && first.name !== name) out.set(`by.${g}`, name);
  }
  return out;
}
