import { randomFromSeed } from './hash';
import { buildLeafCalls, type CallRecord, type FanoutRecord } from './leaf-calls-builder';
import type { LeafCalls } from './types';

/**
 * Small seeded LeafCalls generators for this package's tests (not exported from the package).
 * Latencies in ms; fan-outs 10 ms apart from epoch 1.7e12 ms.
 */

export interface PaperOptions {
  fanouts: number;
  width: number;
  /** Probability that a call is slow (~1 s instead of ~10 ms). */
  slowProbability: number;
  /** Slowness drawn once per fan-out and shared by all its calls. */
  correlated?: boolean;
  seed: number;
}

/** The Tail at Scale, Figure 1: calls ~10 ms, a fraction at ~1 s, all sent at once. */
export function paperFanouts(o: PaperOptions): LeafCalls {
  const r = randomFromSeed(`paper-${o.seed}`);
  const fanouts: FanoutRecord[] = [];
  for (let f = 0; f < o.fanouts; f++) {
    const sharedSlow = r() < o.slowProbability;
    const calls: CallRecord[] = [];
    for (let i = 0; i < o.width; i++) {
      const slow = o.correlated ? sharedSlow : r() < o.slowProbability;
      calls.push({
        startMs: 0,
        durationMs: slow ? 1000 + r() * 10 : 9 + r() * 2,
        host: `h${i}`,
        mode: 'dedicated',
        background: 'none',
      });
    }
    fanouts.push({ traceId: `t${f}`, parentSpanId: 'p', startMs: 1.7e12 + f * 10, calls });
  }
  return buildLeafCalls(fanouts);
}

export interface CauseOptions {
  fanouts: number;
  width: number;
  hosts: number;
  seed: number;
  /** Host index whose calls take `sickExtraMs` more with probability `sickProbability`. */
  sickHost: number;
  sickExtraMs: number;
  sickProbability: number;
}

/**
 * Calls spread over hosts (lognormal-ish ~5 ms), one sick host, a `zone` attribute that is a
 * decoy (drawn per call, no effect) and a `rack` attribute that follows the host (rack of the
 * sick host = r0, shared with healthy hosts).
 */
export function causeFanouts(o: CauseOptions): LeafCalls {
  const r = randomFromSeed(`cause-${o.seed}`);
  const fanouts: FanoutRecord[] = [];
  for (let f = 0; f < o.fanouts; f++) {
    const calls: CallRecord[] = [];
    for (let i = 0; i < o.width; i++) {
      const h = Math.floor(r() * o.hosts);
      let d = 5 * Math.exp(0.5 * gaussian(r));
      if (h === o.sickHost && r() < o.sickProbability) d += o.sickExtraMs;
      calls.push({
        startMs: r() * 0.5,
        durationMs: d,
        host: `host-${h}`,
        mode: h % 2 === 0 ? 'dedicated' : 'shared',
        background: 'none',
        attributes: { zone: r() < 0.5 ? 'a' : 'b', rack: `r${h % 4}` },
      });
    }
    fanouts.push({ traceId: `t${f}`, parentSpanId: 'p', startMs: 1.7e12 + f * 10, calls });
  }
  return buildLeafCalls(fanouts, ['zone', 'rack']);
}

/** Standard normal by Box-Muller. */
function gaussian(r: () => number): number {
  const u = 1 - r();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * r());
}
