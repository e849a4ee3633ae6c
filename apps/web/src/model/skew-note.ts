import { formatCount, formatMs } from '@tailscope/charts';

export interface SkewPair {
  clientHost: string;
  serverHost: string;
  calls: number;
  maxMs: number;
}

/**
 * The clock-skew note: one line with a count (it listed every host pair, which ran to
 * paragraphs). Spans of one host share a clock, so a server span outside its client there is
 * not skew (it is rounding or instrumentation) and is not claimed; an unknown host proves
 * nothing either way and is left out too. Null when nothing is left.
 */
export function skewNote(pairs: readonly SkewPair[]): string | null {
  const skewed = pairs.filter(
    (p) =>
      p.clientHost !== p.serverHost && p.clientHost !== 'unknown' && p.serverHost !== 'unknown',
  );
  if (skewed.length === 0) return null;
  const calls = skewed.reduce((n, p) => n + p.calls, 0);
  const maxMs = skewed.reduce((m, p) => Math.max(m, p.maxMs), 0);
  const pairsText =
    skewed.length === 1 ? '1 host pair' : `${formatCount(skewed.length)} host pairs`;
  return `clock skew: ${formatCount(calls)} ${calls === 1 ? 'call' : 'calls'} between ${pairsText} answered outside the caller's span (up to ${formatMs(maxMs)}), timed on the caller's clock`;
}
