import type { Cluster, LoadGenerator, LoadSnapshot } from '@tailscope/demo';

/**
 * The demo's warm-up: the cluster runs under its real load with its recording gate closed until
 * the fan-out latency has settled and every leaf's sharing probe has its ruling, or a cap. A
 * newcomer's first minute then shows the steady state (p50 ~16 ms, p99 ~100 ms on 2 cores), not
 * the start-up storm (seconds-long fan-outs, timeouts at 5 s, every leaf reading contended).
 */

/** One warm-up window as the load generator saw it. */
export interface WarmupWindow {
  answers: number;
  /** Fan-outs that failed in this window. */
  failed: number;
  p50Ms: number;
  p99Ms: number;
}

/** Windows that must agree. */
export const STABLE_WINDOWS = 3;

/** Quantiles agree when within x`ratio` of each other, or `spreadMs` apart (low latencies). */
function agree(values: number[], ratio: number, spreadMs: number): boolean {
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  return hi <= lo * ratio || hi - lo <= spreadMs;
}

/**
 * Settled: the last STABLE_WINDOWS windows all answered, none failed, their p50s agree closely
 * (x1.5 or 10 ms) and their p99s loosely (x2 or 50 ms: a window's p99 is its one or two
 * slowest fan-outs, and those are the tail the demo is about). Pure; `windows` oldest first.
 */
export function latencySettled(windows: readonly WarmupWindow[]): boolean {
  const last = windows.slice(-STABLE_WINDOWS);
  if (last.length < STABLE_WINDOWS) return false;
  const bad = (w: WarmupWindow) =>
    w.answers === 0 || w.failed > 0 || !Number.isFinite(w.p99Ms) || !Number.isFinite(w.p50Ms);
  if (last.some(bad)) return false;
  return (
    agree(
      last.map((w) => w.p50Ms),
      1.5,
      10,
    ) &&
    agree(
      last.map((w) => w.p99Ms),
      2,
      50,
    )
  );
}

export interface WarmupResult {
  seconds: number;
  settled: boolean;
  /** The last window's p99, ms (NaN if none answered). */
  p99Ms: number;
}

/**
 * Runs the warm-up (the load must already be running): a window every `windowS`, a line per
 * window through `log`, until settled and the probes ruled, or `maxS`; then opens recording.
 */
export async function warmUp(
  cluster: Cluster,
  load: LoadGenerator,
  opts: { maxS: number; windowS?: number; log: (line: string) => void },
): Promise<WarmupResult> {
  const windowS = opts.windowS ?? 3;
  const started = performance.now();
  const windows: WarmupWindow[] = [];
  let prev: LoadSnapshot = load.snapshot();
  let settled = false;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, windowS * 1000));
    const snap = load.snapshot();
    windows.push({
      answers: snap.answers,
      failed: snap.failed - prev.failed,
      p50Ms: snap.p50Ms,
      p99Ms: snap.p99Ms,
    });
    prev = snap;
    const elapsed = (performance.now() - started) / 1000;
    const probes = cluster.probesSettled();
    settled = probes && latencySettled(windows);
    opts.log(
      `warming up ${String(Math.round(elapsed)).padStart(3)}s  p50 ${fmt(snap.p50Ms)}  p99 ${fmt(snap.p99Ms)}  failed ${String(windows.at(-1)?.failed ?? 0)}  probes ${probes ? 'done' : 'measuring'}`,
    );
    if (settled || elapsed >= opts.maxS) break;
  }
  if (!cluster.probesSettled()) cluster.settleProbes();
  cluster.startRecording();
  // Answers of fan-outs that started before the gate opened are not the recording's.
  load.snapshot();
  return {
    seconds: (performance.now() - started) / 1000,
    settled,
    p99Ms: windows.at(-1)?.p99Ms ?? Number.NaN,
  };
}

function fmt(ms: number): string {
  return Number.isFinite(ms) ? `${ms.toFixed(1)} ms` : '-';
}
