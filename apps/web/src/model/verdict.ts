import type { FanoutOp } from '../api/contracts';
import { formatMs, formatPct } from '@tailscope/charts';
import { verdictKind } from './operations';

export interface Verdict {
  kind: 'independent' | 'correlated' | 'unknown';
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
