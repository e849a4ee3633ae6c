/**
 * Whether the load is quiet before a fault (docs/incidents.md "Schedule"): a fault's incident is
 * ranked against the requests just before it, so a backlog left by the previous fault (open load
 * into a shared pool that had not drained) spoils that baseline. The load reports every 2 s its
 * requests in flight and the median latency of the requests answered (scripts.ts LOAD); the
 * stretch before a fault is quiet when its last reports are like the first fault-free
 * stretch's. Pure.
 */

export interface LoadReport {
  /** Epoch ms of the report. */
  t: number;
  inFlight: number;
  /** Median latency of the requests answered in the 2 s before, ms; null when none was. */
  p50Ms: number | null;
  /** Requests answered in those 2 s. */
  n: number;
}

/** The load's reports in its output (other lines are skipped). */
export function parseLoadReports(text: string): LoadReport[] {
  const out: LoadReport[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{"t":')) continue;
    try {
      const r = JSON.parse(line) as Partial<LoadReport> & { end?: boolean };
      if (r.end || typeof r.t !== 'number' || typeof r.inFlight !== 'number') continue;
      out.push({ t: r.t, inFlight: r.inFlight, p50Ms: r.p50Ms ?? null, n: r.n ?? 0 });
    } catch {
      // A line cut at the start of the kept output.
    }
  }
  return out;
}

export interface LoadBaseline {
  /** Median over the stretch of the reports' median latencies, ms. */
  p50Ms: number;
  /** Median requests in flight. */
  inFlight: number;
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

/** The baseline of the reports in [fromMs, toMs); null with fewer than 3 that answered. */
export function loadBaseline(
  reports: readonly LoadReport[],
  fromMs: number,
  toMs: number,
): LoadBaseline | null {
  const rs = reports.filter((r) => r.t >= fromMs && r.t < toMs && r.p50Ms !== null);
  if (rs.length < 3) return null;
  return {
    p50Ms: median(rs.map((r) => r.p50Ms as number)),
    inFlight: median(rs.map((r) => r.inFlight)),
  };
}

export interface QuietOptions {
  /** The stretch judged, ending at `nowMs` (default 10 s: five reports). */
  spanMs?: number;
  /** Most a report's median latency may exceed the baseline's by (default x1.3). */
  ratio?: number;
}

/**
 * Quiet: over the last `spanMs` there are reports, every one answered requests with a median
 * latency at most `ratio` times the baseline's, and none had more requests in flight than
 * twice the baseline's plus 2 (the open load's ordinary wobble at a few per second).
 */
export function isQuiet(
  reports: readonly LoadReport[],
  base: LoadBaseline,
  nowMs: number,
  o: QuietOptions = {},
): boolean {
  const spanMs = o.spanMs ?? 10_000;
  const ratio = o.ratio ?? 1.3;
  const last = reports.filter((r) => r.t > nowMs - spanMs && r.t <= nowMs);
  if (last.length < Math.max(1, Math.floor(spanMs / 2000) - 1)) return false;
  return last.every(
    (r) => r.p50Ms !== null && r.p50Ms <= ratio * base.p50Ms && r.inFlight <= 2 * base.inFlight + 2,
  );
}
