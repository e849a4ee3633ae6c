import type { FanoutOp } from '../api/contracts';
import { formatMs, formatPct } from '@tailscope/charts';
import { verdictKind, type VerdictKind } from './operations';

export interface Verdict {
  kind: VerdictKind;
  headline: string;
  detail: string;
}

/** The verdict line under an operation's title: what the amplification numbers mean. */
export function verdictFor(op: FanoutOp): Verdict {
  const a = op.amplification;
  const kind = verdictKind(a.verdict);
  const obs = formatPct(a.observedTailProbability);
  const pred = formatPct(a.predictedTailProbability);
  const t = formatMs(a.thresholdMs);
  if (kind === 'queueing') {
    const k = op.poolSize !== undefined ? `${op.poolSize} workers` : 'a bounded pool of workers';
    const wait =
      op.queueWaitMs !== undefined
        ? ` A call waits ${formatMs(op.queueWaitMs.p50)} for a worker at the median, ${formatMs(op.queueWaitMs.p99)} at p99.`
        : '';
    return {
      kind,
      headline: 'Queueing for workers',
      detail: `${obs} of requests take longer than ${t}. Waiting for a worker, not slow calls, makes requests slow: the ${Math.round(op.width.p50)} calls of a request go through ${k}.${wait} Add parallelism (more workers); hedging will not help.`,
    };
  }
  if (kind === 'independent')
    return {
      kind,
      headline: 'Independent slowness',
      detail: `${obs} of requests take longer than ${t}; if each call were slow on its own, ${pred} would. Rare slow calls add up across the ${Math.round(op.width.p50)} calls of a request, so hedged or tied requests should cut the tail.`,
    };
  if (kind === 'correlated')
    return {
      kind,
      headline: 'Correlated slowness',
      detail: `${obs} of requests take longer than ${t}, against ${pred} if calls were slow independently: the calls of a request are slow together (a shared cause upstream, on the caller or in time), so hedging will help less than the call tail suggests.`,
    };
  return {
    kind,
    headline: a.verdict,
    detail: `${obs} of requests take longer than ${t}; ${pred} predicted if calls were slow independently.`,
  };
}
