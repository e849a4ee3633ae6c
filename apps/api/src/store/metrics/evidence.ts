import {
  CONTAINER_CPU_LIMIT,
  CONTAINER_CPU_USAGE,
  EvidenceSeriesBuilder,
  HOST_CPUS,
  HOST_IDLE,
  containerSaturation,
  evidenceRows,
  neighbourBusy,
  type EvidenceRowOf,
  type EvidenceSeries,
} from '@tailscope/analysis';
import type { Store } from '../engine/client';
import { execRowBinary, RowBinaryReader } from '../sql/row-binary';
import { join, param, raw, sql, type Sql } from '../sql/template';
import { EVIDENCE_SOURCES, HOST_KEYS, sourceRows, type EvidenceSignal } from './evidence-sources';
import { WINDOWS_TABLE, WINDOW_BUCKET_NS } from './evidence-windows';

/**
 * Evidence per (host, window) from the metrics tables (docs/metrics.md "Evidence from
 * metrics"): one value per (host, signal, metric, window), summed over the metric's series
 * (CPU modes, CPUs, interfaces, GC kinds) of that host.
 *
 * - gauges (`otel_metrics_gauge`): the mean of each series' points in the window;
 * - sums and histograms' `Sum` (`otel_metrics_sum`, `otel_metrics_histogram`): per second,
 *   delta points summed over the window, cumulative series as the increase from the series'
 *   last point of the previous window with points to its last point in this one (a drop, a
 *   reset, counts as 0; the first window of a series has no rate).
 *
 * A metric row belongs to every host its resource names under JOIN_KEYS, so a pod's metrics
 * meet spans keyed by pod and a node's metrics spans keyed by node. What is evidence is defined
 * once, in evidence-sources.ts; whole 10 s buckets are read from the pre-aggregate
 * (evidence-windows.ts) where the store has it, the rest from the exporter's tables.
 */

export {
  CPU_SATURATION_METRICS,
  GC_METRICS,
  JOIN_KEYS,
  MEMORY_METRICS,
  NETWORK_METRICS,
  THROTTLING_METRICS,
  type EvidenceSignal,
} from './evidence-sources';

export interface EvidenceQuery {
  fromNs: bigint;
  toNs: bigint;
  windowNs: bigint;
  /** Only these hosts (any JOIN_KEYS value); at most MAX_EVIDENCE_HOSTS are asked. */
  hosts: readonly string[];
  /** At most this many rows. */
  maxRows: number;
}

/** One evidence value: `window` is floor(time ns / windowNs). */
export type EvidenceRow = EvidenceRowOf<EvidenceSignal>;
/** Evidence per (host, signal, metric) series, as columns (packages/analysis). */
export type HostEvidence = EvidenceSeries<EvidenceSignal>;

/** The widest range one evidence query reads (a day), and the most hosts it asks. */
export const MAX_EVIDENCE_RANGE_NS = 86_400n * 1_000_000_000n;
export const MAX_EVIDENCE_HOSTS = 1000;

/** A signal as the query returns it: evidence, or an input of neighbourBusy or containerSaturation. */
type QuerySignal =
  | EvidenceSignal
  | typeof HOST_IDLE
  | typeof HOST_CPUS
  | typeof CONTAINER_CPU_USAGE
  | typeof CONTAINER_CPU_LIMIT;
const INPUTS = new Set<string>([HOST_IDLE, HOST_CPUS, CONTAINER_CPU_USAGE, CONTAINER_CPU_LIMIT]);
type QueryRow = Omit<EvidenceRow, 'signal'> & { signal: QuerySignal };
/** One series as the query returns it (RowBinary, read by readSeries). */
interface SeriesRow {
  host: string;
  signal: QuerySignal;
  metric: string;
  /** Ascending. */
  windows: Float64Array;
  values: Float64Array;
}

/** The query's RowBinary rows: (host, signal, metric String, windows, values Array(Float64)). */
function readSeries(body: Buffer): SeriesRow[] {
  const r = new RowBinaryReader(body);
  const out: SeriesRow[] = [];
  while (!r.done()) {
    const host = r.string();
    const signal = r.string() as QuerySignal;
    const metric = r.string();
    const windows = r.float64s();
    const values = r.float64s();
    if (windows.length !== values.length) throw new Error('evidence: windows and values differ');
    out.push({ host, signal, metric, windows, values });
  }
  return out;
}

const ceilDiv = (a: bigint, b: bigint): bigint => (a % b === 0n ? a / b : a / b + 1n);

/**
 * The points of [from, to) per (host, signal, metric, series, kind, bucket) as sourceRows
 * gives them: the whole 10 s buckets from the pre-aggregate when the store has it and the
 * window is a whole number of buckets, the rest (or all) from the exporter's tables in buckets
 * of `granule`.
 */
function bucketRows(store: Store, q: EvidenceQuery): { rows: Sql; granule: bigint } {
  const pre =
    store.accelerators.metricWindows && q.windowNs % WINDOW_BUCKET_NS === 0n && q.fromNs >= 0n;
  const granule = pre ? WINDOW_BUCKET_NS : q.windowNs;
  const parts: Sql[] = [];
  let rest: [bigint, bigint][] = [[q.fromNs, q.toNs]];
  const b0 = ceilDiv(q.fromNs, WINDOW_BUCKET_NS);
  const b1 = q.toNs / WINDOW_BUCKET_NS;
  if (pre && b0 < b1) {
    parts.push(sql`SELECT host, signal, metric, series, kind, bucket, last, total, points
      FROM ${raw(WINDOWS_TABLE)}
      WHERE host IN ${q.hosts} AND bucket >= ${b0} AND bucket < ${b1}`);
    rest = [
      [q.fromNs, b0 * WINDOW_BUCKET_NS],
      [b1 * WINDOW_BUCKET_NS, q.toNs],
    ];
  }
  rest = rest.filter(([a, b]) => a < b);
  if (rest.length > 0) {
    const t = raw('toDateTime64(TimeUnix, 9)');
    const ns = (v: bigint) => sql`fromUnixTimestamp64Nano(${param(v.toString(), 'Int64')})`;
    const inRange = join(
      rest.map(([a, b]) => sql`(${t} >= ${ns(a)} AND ${t} < ${ns(b)})`),
      ' OR ',
    );
    for (const src of EVIDENCE_SOURCES)
      parts.push(
        sourceRows(
          src,
          src.table,
          param(granule.toString(), 'Int64'),
          sql`(${inRange}) AND host IN ${q.hosts}`,
        ),
      );
  }
  return { rows: join(parts, ' UNION ALL '), granule };
}

/**
 * Per (host, signal, metric), the sum over its series per window, ordered by host, signal and
 * metric, at most `maxRows` values: evidence as columns, the derived signals' inputs as rows
 * (few: only hosts that send idle CPU or a container's usage and limit). A group of one series
 * (the common case) is copied as it is. A host's CPU count per window (HOST_CPUS) is its idle
 * series counted: each CPU's idle series is 1 in every window it has a point in. O(values).
 */
function sumSeries(
  rows: readonly SeriesRow[],
  maxRows: number,
): { evidence: EvidenceSeriesBuilder<EvidenceSignal>; inputs: QueryRow[] } {
  const groups = new Map<string, SeriesRow[]>();
  const add = (s: SeriesRow): void => {
    const key = `${s.host}\u0000${s.signal}\u0000${s.metric}`;
    const g = groups.get(key);
    if (g) g.push(s);
    else groups.set(key, [s]);
  };
  let total = 0;
  for (const s of rows) {
    add(s);
    total += s.values.length;
    if (s.signal === HOST_IDLE)
      add({ ...s, signal: HOST_CPUS, values: new Float64Array(s.windows.length).fill(1) });
  }
  const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  const ordered = [...groups.values()].sort((a, b) => {
    const x = a[0];
    const y = b[0];
    if (!x || !y) return 0;
    return cmp(x.host, y.host) || cmp(x.signal, y.signal) || cmp(x.metric, y.metric);
  });
  // Evidence and the derived signals' inputs apart (decided per group, not per value): the
  // inputs are few, and the derivations then read only them.
  const evidence = new EvidenceSeriesBuilder<EvidenceSignal>(Math.min(total, maxRows));
  const inputs: QueryRow[] = [];
  let n = 0;
  for (const series of ordered) {
    const [first] = series;
    if (!first || n >= maxRows) break;
    let windows = first.windows;
    let values = first.values;
    if (series.length > 1) {
      const sums = new Map<number, number>();
      for (const s of series)
        s.windows.forEach((w, i) => sums.set(w, (sums.get(w) ?? 0) + (s.values[i] ?? 0)));
      windows = Float64Array.from(sums.keys()).sort();
      values = windows.map((w) => sums.get(w) ?? 0);
    }
    const { host, signal, metric } = first;
    const k = Math.min(windows.length, maxRows - n);
    if (INPUTS.has(signal))
      for (let i = 0; i < k; i++)
        inputs.push({
          host,
          signal,
          metric,
          window: windows[i] as number,
          value: values[i] as number,
        });
    else
      evidence.push(
        host,
        signal as EvidenceSignal,
        metric,
        windows.subarray(0, k),
        values.subarray(0, k),
      );
    n += k;
  }
  return { evidence, inputs };
}

/**
 * Evidence of the hosts over [from, to) as columns, the range clamped to MAX_EVIDENCE_RANGE_NS:
 * per (host, signal, metric) series, ordered so, its windows and values (derived signals'
 * series after the others).
 */
export async function selectHostEvidence(store: Store, q0: EvidenceQuery): Promise<HostEvidence> {
  const hosts = q0.hosts.slice(0, MAX_EVIDENCE_HOSTS);
  if (hosts.length === 0 || q0.toNs <= q0.fromNs || q0.windowNs <= 0n)
    return new EvidenceSeriesBuilder<EvidenceSignal>(0).done();
  const fromNs =
    q0.toNs - q0.fromNs > MAX_EVIDENCE_RANGE_NS ? q0.toNs - MAX_EVIDENCE_RANGE_NS : q0.fromNs;
  const q = { ...q0, fromNs, hosts };
  const { rows: points, granule } = bucketRows(store, q);
  const perWindow = param((q.windowNs / granule).toString(), 'Int64');
  const windowSeconds = param(Number(q.windowNs) / 1e9, 'Float64');
  // Per series (one GROUP BY of the buckets, numeric arrays only: an array of tuples per group
  // measured 4x slower), its buckets sorted and merged into windows with arrayReduceInRanges
  // (a window of several buckets, or a bucket in several unmerged parts). A cumulative series'
  // rates are differences of neighbouring windows; its first window has none (0 / 0, dropped
  // as not finite), nor has an interval of zero length. Sorting each array by the buckets
  // rather than indexing through a permutation: a lambda that captures an array copies it per
  // element. Out: one row per series with its windows and values as Float64 arrays (windows
  // exact below 2^53), bounded by a running count of values (at most maxRows plus one series),
  // as RowBinary: the arrays are copied into typed arrays whole, with no JSON to parse and no
  // object per value. The sum over a host's series per window (CPU modes, interfaces) is taken
  // in TypeScript (sumSeries).
  const body = await execRowBinary(
    store,
    sql`
    SELECT CAST(host, 'String') AS host, CAST(signal, 'String') AS signal,
      CAST(metric, 'String') AS metric, arrayMap(w -> toFloat64(w), ws) AS windows,
      CAST(vs, 'Array(Float64)') AS values
    FROM (
      SELECT host, signal, metric, arrayFilter((w, v) -> isFinite(v), win, raw) AS ws,
        arrayFilter(v -> isFinite(v), raw) AS vs,
        sum(length(vs)) OVER (ORDER BY host, signal, metric, series
          ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS upto
      FROM (
        SELECT host, signal, metric, series,
          arrayMap(b -> intDiv(b, ${perWindow}), arraySort(bs)) AS wv,
          arrayMap((i, d) -> i = 1 OR d != 0, arrayEnumerate(wv), arrayDifference(wv)) AS isStart,
          arrayFilter((i, s) -> s, arrayEnumerate(wv), isStart) AS starts,
          arrayZip(starts, arrayMap(x -> toUInt64(x),
            arrayPopFront(arrayDifference(arrayPushBack(starts, length(wv) + 1))))) AS ranges,
          arrayFilter((w, s) -> s, wv, isStart) AS win,
          arrayReduceInRanges('sum', ranges, arraySort((x, b) -> b, tt, bs)) AS tot,
          arrayReduceInRanges('sum', ranges, arraySort((x, b) -> b, nn, bs)) AS cnt,
          arrayReduceInRanges('max', ranges, arraySort((x, b) -> b, lt, bs)) AS lastT,
          arrayReduceInRanges('argMax', ranges,
            arraySort((x, b) -> b, lv, bs), arraySort((x, b) -> b, lt, bs)) AS lastV,
          multiIf(kind = 0, arrayMap((t, n) -> t / n, tot, cnt),
            kind = 1, arrayMap(t -> t / ${windowSeconds}, tot),
            arrayMap((d, t) -> greatest(d, 0) / (t / 1e9),
              arrayDifference(lastV), arrayDifference(lastT))) AS raw
        FROM (
          SELECT host, signal, metric, series, kind, groupArray(bucket) AS bs,
            groupArray(last.1) AS lt, groupArray(last.2) AS lv, groupArray(total) AS tt,
            groupArray(points) AS nn
          FROM (${points})
          GROUP BY host, signal, metric, series, kind
        )
      )
    )
    WHERE upto - length(vs) < ${q.maxRows} AND length(vs) > 0`,
  );
  const { evidence, inputs } = sumSeries(readSeries(body), q.maxRows);
  if (inputs.length === 0) return evidence.done();
  // The host's idle CPU and CPU count are inputs, not evidence: with the workload's own CPU they
  // become the share of the host busy with other work (neighbourBusy); a container's usage and
  // limit become its CPU saturation (containerSaturation).
  const withInputs = new Set(inputs.map((r) => r.host));
  const sofar = evidence.done();
  const own = evidenceRows(
    sofar,
    (i) => sofar.signal[i] === 'cpu-saturation' && withInputs.has(sofar.host[i] as string),
  );
  const from = [...inputs, ...own];
  evidence.pushRows([...neighbourBusy(from), ...containerSaturation(from)] as EvidenceRow[]);
  return evidence.done();
}

/** The series ids of each host, in order. O(series). */
export function seriesByHost(s: HostEvidence): Map<string, number[]> {
  const out = new Map<string, number[]>();
  s.host.forEach((h, i) => {
    const g = out.get(h);
    if (g) g.push(i);
    else out.set(h, [i]);
  });
  return out;
}

/**
 * Hosts (JOIN_KEYS values) that have any gauge, sum or histogram point over [from, to), at most
 * `limit`; only those of `among` when it is given.
 */
export async function selectMetricHosts(
  store: Store,
  fromNs: bigint,
  toNs: bigint,
  limit: number,
  among?: readonly string[],
): Promise<string[]> {
  const only = among ? sql` AND host IN ${among}` : raw('');
  const rows = await store.query<{ host: string }>(sql`
    SELECT DISTINCT arrayJoin(${raw(HOST_KEYS)}) AS host
    FROM (SELECT ResourceAttributes, TimeUnix FROM otel_metrics_gauge
      UNION ALL SELECT ResourceAttributes, toDateTime64(TimeUnix, 9) FROM otel_metrics_sum
      UNION ALL SELECT ResourceAttributes, TimeUnix FROM otel_metrics_histogram)
    WHERE TimeUnix >= fromUnixTimestamp64Nano(${param(fromNs.toString(), 'Int64')})
      AND TimeUnix < fromUnixTimestamp64Nano(${param(toNs.toString(), 'Int64')})${only}
    ORDER BY host
    LIMIT ${limit}`);
  return rows.map((r) => r.host);
}
