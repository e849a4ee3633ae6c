// Named scenarios for chart tests (seeded; no clock). Only tests import this file.
import type { CurvePoint } from './amplification/layout';
import type { ForestInput } from './forest/layout';
import { quantileCurve, type QuantilePoint } from './quantile-curve';
import type { WaterfallRow } from './waterfall/layout';
import type { EvidenceSeriesInput } from './evidence/layout';
import type { ReadingInput } from './evidence/reading';
import { formatPct } from './format';

/**
 * mulberry32, uniform in [0, 1). Not @tailscope/analysis's generator (new code uses that one):
 * the CDF golden file pins these exact draws, and the issue keeps every golden file as it is.
 */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Leaf latencies: lognormal around 10 ms with 1 call in 100 at ~1 s (the paper's example). */
function leafLatenciesWithRareSlowCalls(n: number, seed: number): Float64Array {
  const r = seeded(seed);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const z = Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
    out[i] = r() < 0.01 ? 1000 * (1 + r() * 0.2) : 10 * Math.exp(0.3 * z);
  }
  return out.sort();
}

/** One-leaf and all-leaves curves for fan-outs of width `width` built from the sample above. */
export function fanoutCurves(fanouts: number, width: number, seed: number) {
  const calls = leafLatenciesWithRareSlowCalls(fanouts * width, seed);
  const r = seeded(seed + 1);
  const all = new Float64Array(fanouts);
  for (let f = 0; f < fanouts; f++) {
    let m = 0;
    for (let i = 0; i < width; i++) m = Math.max(m, calls[Math.floor(r() * calls.length)] ?? 0);
    all[f] = m;
  }
  all.sort();
  return { oneLeaf: quantileCurve(calls), allLeaves: quantileCurve(all) } satisfies Record<
    string,
    QuantilePoint[]
  >;
}

/** The amplification curve of an operation of width 100 whose slowness is independent. */
export const independentCurve: CurvePoint[] = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000].map(
  (w) => ({
    width: w,
    predicted: 1 - 0.99 ** w,
    ...(w <= 100 && w % 10 === 0 ? { observed: 1 - 0.99 ** w - 0.01 } : {}),
  }),
);

/** Attribution with a sick host, a contended sharing mode and a decoy attribute. */
export const sickHostStragglers: AttributionRow[] = [
  row('host', 'leaf-07', 4000, 610, 0.05, 0.61, 22.4, 18.1, 27.6, 1e-40, 1e-38, true, 310),
  row('sharing_mode', 'contended', 16000, 250, 0.2, 0.25, 1.9, 1.6, 2.3, 1e-9, 1e-8, true, 42),
  row('background', 'compaction', 2400, 60, 0.03, 0.06, 2.1, 1.6, 2.8, 2e-5, 1e-4, true, 11),
  row('host', 'leaf-03', 4000, 20, 0.05, 0.02, 0.39, 0.25, 0.61, 0.2, 0.4, false, 0),
  row('attr:deploy.color', 'blue', 40000, 480, 0.5, 0.48, 0.92, 0.81, 1.05, 0.31, 0.52, false, 0),
];

/** An attribution row as the API sends it; the forest reads the `ForestInput` part. */
interface AttributionRow extends ForestInput {
  calls: number;
  stragglers: number;
  trafficShare: number;
  pValue: number;
  p99DropMs: number;
}

function row(
  dimension: string,
  value: string,
  calls: number,
  stragglers: number,
  trafficShare: number,
  stragglerShare: number,
  riskRatio: number,
  riskRatioLow: number,
  riskRatioHigh: number,
  pValue: number,
  qValue: number,
  cause: boolean,
  p99DropMs: number,
): AttributionRow {
  return {
    dimension,
    value,
    calls,
    stragglers,
    trafficShare,
    stragglerShare,
    riskRatio,
    riskRatioLow,
    riskRatioHigh,
    pValue,
    qValue,
    cause,
    p99DropMs,
  };
}

/**
 * The waterfall rows of one request of a client-server fan-out (the dashboard derives them from
 * its trace model): `frontend` calls `storage` Read on four hosts; the call to storage-07
 * (contended) is the straggler. The whole trace lasts `FANOUT_TRACE_MS`.
 */
export const FANOUT_TRACE_MS = 64;
export const fanoutTraceRows: WaterfallRow[] = [
  {
    id: 'root',
    label: 'GET /read',
    service: 'frontend',
    depth: 0,
    startMs: 0,
    durationMs: 64,
    call: false,
    straggler: false,
    error: false,
  },
  {
    id: 'c0',
    label: 'Read',
    service: 'storage',
    depth: 1,
    startMs: 0.1,
    durationMs: 8,
    call: true,
    straggler: false,
    error: false,
    inner: {
      startMs: 0.3,
      durationMs: 7.6,
    },
    host: 'storage-01',
    mode: 'dedicated',
  },
  {
    id: 'c1',
    label: 'Read',
    service: 'storage',
    depth: 1,
    startMs: 0.2,
    durationMs: 9.5,
    call: true,
    straggler: false,
    error: false,
    inner: {
      startMs: 0.4,
      durationMs: 9.1,
    },
    host: 'storage-02',
    mode: 'shared',
  },
  {
    id: 'c2',
    label: 'Read',
    service: 'storage',
    depth: 1,
    startMs: 0.3,
    durationMs: 61,
    call: true,
    straggler: true,
    error: false,
    inner: {
      startMs: 0.5,
      durationMs: 60.6,
    },
    host: 'storage-07',
    mode: 'contended',
  },
  {
    id: 'c3',
    label: 'Read',
    service: 'storage',
    depth: 1,
    startMs: 0.4,
    durationMs: 7.2,
    call: true,
    straggler: false,
    error: false,
    inner: {
      startMs: 0.6,
      durationMs: 6.8,
    },
    host: 'storage-11',
    mode: 'dedicated',
  },
  {
    id: 'db',
    label: 'render',
    service: 'frontend',
    depth: 1,
    startMs: 61.5,
    durationMs: 2,
    call: false,
    straggler: false,
    error: false,
  },
];

/** The value, or a test failure naming what was missing (instead of a non-null assertion). */
export function defined<T>(v: T | null | undefined, what = 'value'): T {
  if (v === null || v === undefined) throw new Error(`${what} is missing`);
  return v;
}

/** A pod's CPU share of its limit per minute: 12% before, 98% in a 2-minute episode. */
const EVIDENCE_T = Date.UTC(2026, 0, 1, 5, 16);
export const CPU_SERIES: EvidenceSeriesInput = {
  fromMs: EVIDENCE_T,
  windowMs: 60_000,
  values: [0.12, 0.11, null, 0.13, 0.98, 0.97],
  episodeFromMs: EVIDENCE_T + 4 * 60_000,
  episodeToMs: EVIDENCE_T + 6 * 60_000,
  value: 0.975,
  baseline: 0.12,
  format: formatPct,
  label: 'k8s.pod.cpu_limit_utilization',
};

/**
 * A host judged contended from its CPU steal per minute (s/s): mostly above the rule's 0.1,
 * one minute without a point, one below; the other hosts' mean 0.015.
 */
export const STEAL_READING: ReadingInput = {
  fromMs: EVIDENCE_T,
  windowMs: 60_000,
  values: [0.3, 0.32, null, 0.05, 0.29, 0.31],
  value: 0.254,
  baseline: 0.015,
  level: 0.1,
  format: formatPct,
  label: 'system.cpu.time steal on h1',
  baselineLabel: 'on the other hosts',
};
