// Named scenarios for the dashboard's model tests (no clock). Only tests import this file; the
// charts' own scenarios live beside them in @tailscope/charts.
import type { FanoutOp, StragglerRow, Trace, TraceSpan } from './api/contracts';

const q = (p50: number, p95: number, p99: number, p999: number) => ({ p50, p95, p99, p999 });

/** An operation of width 100 whose slowness is independent across calls. */
export const independentFanout: FanoutOp = {
  parentService: 'frontend',
  parentOperation: 'GET /search',
  leafService: 'index',
  leafOperation: 'Search',
  requests: 12_000,
  width: { p50: 100, max: 100 },
  table1: {
    oneLeaf: q(10.1, 14.2, 980, 1150),
    p95Leaves: q(14.8, 17.5, 20.3, 1010),
    allLeaves: q(990, 1120, 1180, 1200),
    slowest5pctShareOfP99: 0.98,
  },
  amplification: {
    thresholdMs: 980,
    observedTailProbability: 0.62,
    predictedTailProbability: 0.634,
    verdict: 'independent',
  },
  curve: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000].map((w) => ({
    width: w,
    predicted: 1 - 0.99 ** w,
    ...(w <= 100 && w % 10 === 0 ? { observed: 1 - 0.99 ** w - 0.01 } : {}),
  })),
};

/** Attribution with a sick host, a contended sharing mode and a decoy attribute. */
export const sickHostStragglers: StragglerRow[] = [
  row('host', 'leaf-07', 4000, 610, 0.05, 0.61, 22.4, 18.1, 27.6, 1e-40, 1e-38, true, 310),
  row('sharing_mode', 'contended', 16000, 250, 0.2, 0.25, 1.9, 1.6, 2.3, 1e-9, 1e-8, true, 42),
  row('background', 'compaction', 2400, 60, 0.03, 0.06, 2.1, 1.6, 2.8, 2e-5, 1e-4, true, 11),
  row('host', 'leaf-03', 4000, 20, 0.05, 0.02, 0.39, 0.25, 0.61, 0.2, 0.4, false, 0),
  row('attr:deploy.color', 'blue', 40000, 480, 0.5, 0.48, 0.92, 0.81, 1.05, 0.31, 0.52, false, 0),
];

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
): StragglerRow {
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
 * One request of a client-server fan-out: `frontend` calls `storage` Read on four hosts;
 * the call to storage-07 (contended) is the straggler. Times in ns from 1.7e18.
 */
export function fanoutTrace(): Trace {
  const t0 = 1_700_000_000_000_000_000n;
  const at = (ms: number) => String(t0 + BigInt(Math.round(ms * 1e6)));
  const span = (
    spanId: string,
    parentSpanId: string,
    name: string,
    kind: string,
    service: string,
    startMs: number,
    durMs: number,
    resource: Record<string, unknown> = {},
    attributes: Record<string, unknown> = {},
  ): TraceSpan => ({
    spanId,
    parentSpanId,
    name,
    kind,
    service,
    startTimeUnixNano: at(startMs),
    durationNs: Math.round(durMs * 1e6),
    attributes,
    resource,
    events: [],
    links: [],
    status: { code: 'unset', message: '' },
  });
  const hosts = [
    ['storage-01', 'dedicated', 0.1, 8],
    ['storage-02', 'shared', 0.2, 9.5],
    ['storage-07', 'contended', 0.3, 61],
    ['storage-11', 'dedicated', 0.4, 7.2],
  ] as const;
  const spans: TraceSpan[] = [
    span('root', '', 'GET /read', 'server', 'frontend', 0, 64, { 'host.name': 'fe-1' }),
  ];
  hosts.forEach(([host, mode, start, dur], i) => {
    spans.push(
      span(
        `c${i}`,
        'root',
        'storage.Read',
        'client',
        'frontend',
        start,
        dur,
        { 'host.name': 'fe-1' },
        {
          'server.address': host,
          'peer.service': 'storage',
        },
      ),
      span(`s${i}`, `c${i}`, 'Read', 'server', 'storage', start + 0.2, dur - 0.4, {
        'host.name': host,
        'host.sharing_mode': mode,
      }),
    );
  });
  spans.push(span('db', 'root', 'render', 'internal', 'frontend', 61.5, 2));
  return {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    criticalPath: [],
    truncated: false,
    spans: spans.reverse(),
  };
}

/** The value, or a test failure naming what was missing (instead of a non-null assertion). */
export function defined<T>(v: T | null | undefined, what = 'value'): T {
  if (v === null || v === undefined) throw new Error(`${what} is missing`);
  return v;
}
