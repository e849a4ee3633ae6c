/**
 * Metric evidence as columns (docs/metrics.md "Evidence from metrics"): one entry per (host,
 * signal, metric) series and the windows and values of all series packed in two Float64Arrays,
 * so 1,000 hosts over an hour in 10 s windows (~720,000 values) are two arrays, not as many
 * objects. Pure.
 */

export interface EvidenceSeries<S extends string = string> {
  /** Per series: the host (a resource key's value), the signal and the metric it comes from. */
  host: string[];
  signal: S[];
  metric: string[];
  /** Series i's values are `[start[i], start[i + 1])` of `window` and `value`; series + 1 long. */
  start: Uint32Array;
  /** floor(time / window length), ascending within a series. */
  window: Float64Array;
  value: Float64Array;
}

/** One evidence value as a row (tests, and the few rows the derived signals read). */
export interface EvidenceRowOf<S extends string = string> {
  host: string;
  signal: S;
  metric: string;
  window: number;
  value: number;
}

/** Evidence series appended one by one, then `done()`; amortised O(values). */
export class EvidenceSeriesBuilder<S extends string = string> {
  private readonly host: string[] = [];
  private readonly signal: S[] = [];
  private readonly metric: string[] = [];
  private readonly start: number[] = [0];
  private window: Float64Array;
  private value: Float64Array;
  private n = 0;

  /** `capacity`: the values expected (the arrays grow past it). */
  constructor(capacity = 1024) {
    this.window = new Float64Array(Math.max(16, capacity));
    this.value = new Float64Array(Math.max(16, capacity));
  }

  private reserve(more: number): void {
    if (this.n + more <= this.value.length) return;
    const size = Math.max(this.n + more, this.value.length * 2);
    const w = new Float64Array(size);
    const v = new Float64Array(size);
    w.set(this.window.subarray(0, this.n));
    v.set(this.value.subarray(0, this.n));
    this.window = w;
    this.value = v;
  }

  /** A series from `windows` and `values` of equal length; an empty one is skipped. */
  push(
    host: string,
    signal: S,
    metric: string,
    windows: ArrayLike<number>,
    values: ArrayLike<number>,
  ): void {
    const k = Math.min(windows.length, values.length);
    if (k === 0) return;
    this.reserve(k);
    if (windows instanceof Float64Array && values instanceof Float64Array) {
      this.window.set(k === windows.length ? windows : windows.subarray(0, k), this.n);
      this.value.set(k === values.length ? values : values.subarray(0, k), this.n);
    } else
      for (let i = 0; i < k; i++) {
        this.window[this.n + i] = windows[i] as number;
        this.value[this.n + i] = values[i] as number;
      }
    this.n += k;
    this.host.push(host);
    this.signal.push(signal);
    this.metric.push(metric);
    this.start.push(this.n);
  }

  /** Rows, consecutive rows of one (host, signal, metric) as one series. O(rows). */
  pushRows(rows: readonly EvidenceRowOf<S>[]): void {
    let i = 0;
    while (i < rows.length) {
      const r = rows[i] as EvidenceRowOf<S>;
      let j = i + 1;
      while (j < rows.length) {
        const x = rows[j] as EvidenceRowOf<S>;
        if (x.host !== r.host || x.signal !== r.signal || x.metric !== r.metric) break;
        j++;
      }
      const run = rows.slice(i, j);
      this.push(
        r.host,
        r.signal,
        r.metric,
        run.map((x) => x.window),
        run.map((x) => x.value),
      );
      i = j;
    }
  }

  get values(): number {
    return this.n;
  }

  /** The series so far (copies: the builder may go on). */
  done(): EvidenceSeries<S> {
    return {
      host: this.host.slice(),
      signal: this.signal.slice(),
      metric: this.metric.slice(),
      start: Uint32Array.from(this.start),
      window: this.window.slice(0, this.n),
      value: this.value.slice(0, this.n),
    };
  }
}

/** The number of series. */
export const seriesCount = (s: EvidenceSeries): number => s.host.length;

/** Columns from rows (consecutive rows of one host, signal and metric form one series). */
export function evidenceSeries<S extends string>(
  rows: readonly EvidenceRowOf<S>[],
): EvidenceSeries<S> {
  const b = new EvidenceSeriesBuilder<S>(rows.length);
  b.pushRows(rows);
  return b.done();
}

/** The rows of the series `only` keeps, all by default (tests, small answers). O(values). */
export function evidenceRows<S extends string>(
  s: EvidenceSeries<S>,
  only?: (i: number) => boolean,
): EvidenceRowOf<S>[] {
  const out: EvidenceRowOf<S>[] = [];
  for (let i = 0; i < s.host.length; i++) {
    if (only && !only(i)) continue;
    const host = s.host[i] as string;
    const signal = s.signal[i] as S;
    const metric = s.metric[i] as string;
    for (let j = s.start[i] as number; j < (s.start[i + 1] as number); j++)
      out.push({
        host,
        signal,
        metric,
        window: s.window[j] as number,
        value: s.value[j] as number,
      });
  }
  return out;
}
