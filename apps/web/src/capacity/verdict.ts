// What the capacity page says in words about an answer: which service saturates first, and why
// a prediction should or should not be trusted (issue 29). Pure: the answer in, sentences out.
import type { CapacityServiceView, CapacityView } from '../api/capacity';

/** Fewer requests than this: the p99 rests on fewer than 10 above it. */
export const FEW_REQUESTS = 1000;
/** A fit error above this: the windows' latencies are not what the model predicts. */
export const POOR_FIT = 0.2;

export type Caveat =
  | { kind: 'saturated'; text: string }
  | { kind: 'extrapolated'; text: string }
  | { kind: 'few-requests'; text: string }
  | { kind: 'poor-fit'; text: string }
  | { kind: 'preview'; text: string };

const pct = (x: number): string => `${Math.round(100 * x)}%`;
const times = (x: number): string => `${Number(x.toPrecision(3))}×`;

/** The service that saturates first, in a sentence. */
export function firstToSaturate(a: CapacityView): string | undefined {
  const name = a.capacity.saturatesFirst;
  const s = a.capacity.services.find((x) => x.service === name);
  if (!s) return undefined;
  // The runtime metrics' CPU, when busier than the span model says, is what saturates first.
  const cpu = s.cpu && s.cpu.utilisationAfter > s.utilisationAfter ? s.cpu : undefined;
  if (cpu) {
    const procs = `${cpu.processes} process${cpu.processes === 1 ? '' : 'es'}`;
    if (s.saturated)
      return `${s.service} saturates: its busiest process would need ${pct(cpu.utilisationAfter)} of the CPU it gets (runtime metrics, ${procs}), so its queue grows without bound.`;
    return `${s.service} saturates first: the CPU of its busiest process goes from ${pct(cpu.utilisation)} to ${pct(cpu.utilisationAfter)} of what it gets (runtime metrics, ${procs}; the spans alone read ${pct(s.utilisationAfter)}); about ${times(1 / cpu.utilisationAfter)} more traffic would saturate it.`;
  }
  const at = `${s.instancesAfter} instance${s.instancesAfter === 1 ? '' : 's'} of ${s.k} server${s.k === 1 ? '' : 's'}`;
  if (s.saturated)
    return `${s.service} saturates: its busiest window needs ${pct(s.utilisationAfter)} of ${at}, so its queue grows without bound.`;
  // At 1/utilisation times the new load the busiest window needs all servers.
  return `${s.service} saturates first: its busiest window goes from ${pct(s.utilisation)} to ${pct(s.utilisationAfter)} busy on ${at}; about ${times(1 / s.utilisationAfter)} more traffic would saturate it.`;
}

/** Why the numbers shown may not hold, most serious first. */
export function caveatsOf(a: CapacityView): Caveat[] {
  const out: Caveat[] = [];
  const sat = a.capacity.saturated;
  if (sat.length > 0)
    out.push({
      kind: 'saturated',
      text: `${sat.join(', ')} saturate${sat.length === 1 ? 's' : ''} (utilisation ≥ 100%): no latency can be predicted. Add machines to ${sat.join(', ')} or lower the traffic.`,
    });
  const far = a.capacity.services
    .filter((s) => s.extrapolated && !s.saturated)
    .sort((x, y) => y.loadOverObserved - x.loadOverObserved);
  const top = far[0];
  if (top)
    out.push({
      kind: 'extrapolated',
      text: `Beyond what was recorded: ${far.map((s) => s.service).join(', ')} would see up to ${times(top.loadOverObserved)} the highest load observed. The model's form is assumed there (arrivals as recorded, FIFO, service times that do not grow with load); intervals are widened ${times(top.loadOverObserved ** 2)}.`,
    });
  if (a.requests < FEW_REQUESTS && a.quality !== 'preview')
    out.push({
      kind: 'few-requests',
      text: `Only ${a.requests} requests: the p99 rests on ${Math.floor(a.requests / 100)} requests above it.`,
    });
  const poor = a.capacity.services.filter((s) => s.fitError > POOR_FIT);
  if (poor.length > 0)
    out.push({
      kind: 'poor-fit',
      text: `The model fits ${poor.map((s) => `${s.service} (${pct(s.fitError)} error)`).join(', ')} poorly: its windows' latencies are not what it predicts at their own loads.`,
    });
  if (a.quality === 'preview')
    out.push({
      kind: 'preview',
      text: 'Preview from a sample of the requests (the full answer once the controls rest).',
    });
  return out;
}

/** A service's state in one word, for the table. */
export function serviceFlag(s: CapacityServiceView): string {
  if (s.saturated) return 'saturated';
  if (s.extrapolated) return `extrapolated ${times(s.loadOverObserved)}`;
  if (s.fitError > POOR_FIT) return 'poor fit';
  return '';
}
