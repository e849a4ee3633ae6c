/**
 * Host sharing probe, after Bobtail (Xu et al., NSDI 2013): a host whose CPU is shared with
 * CPU-bound neighbours wakes its sleepers late, because the neighbour holds the core when the
 * timer fires. Sleep for a short interval many times, count the oversleeps, classify.
 *
 * Bobtail slept 0.1 ms and called ">10 ms" an oversleep. Node's timers cannot sleep below 1 ms,
 * so we sleep 1 ms. Thresholds come from measurements on a 2-core machine that five other
 * people were loading at the same time (docs/collectors.md), 2,000-3,000 sleeps of 1 ms per run,
 * lateness = elapsed - 1 ms, share of sleeps late by more than 5 ms / 10 ms:
 *   alone on a core, quiet machine:                    0-0.17%  /  0-0.03%
 *   alone on a core, busy machine (load average 9-13): 1.1-1.4% /  0.2-0.33%
 *   an 83%-busy CPU hog on the core, nice 0:           1.0%     /  0.35%
 *   the same hog, probe at nice 15:                    6.7%     /  1.7%
 *   the same hog, probe at nice 19:                    17%      /  10%
 *   two 100% hogs on the core, probe at nice 10:       4.4-7.5% /  1.1-1.35%
 * and with probeSharingInWorker inside the demo's leaf processes while they served requests:
 *   leaves alone on the other core, busy machine:       2.5-3.4% /  0.45-0.6%
 *   leaf on the hog's core, nice 0:                    3.3%     /  1.05%
 *   leaf on the hog's core, nice 5:                    13.9%    /  7.7%
 */

export type SharingMode = 'dedicated' | 'shared' | 'contended';

export interface SharingThresholds {
  /** An oversleep past this many ms is "long" (Bobtail's 10 ms, about one scheduler slice). */
  longMs: number;
  /** Share of sleeps with a long oversleep at or above which the host is `contended`. */
  contendedFraction: number;
  /** An oversleep past this many ms is "noticeable". */
  noticeableMs: number;
  /** Share of sleeps with a noticeable oversleep at or above which the host is `shared`. */
  sharedFraction: number;
}

/**
 * Thresholds from the measurements above: `contended` needs 2% of sleeps late by > 10 ms, about
 * twice what a core shared at equal priority shows and four times a busy machine's unshared
 * core; `shared` needs 1% late by > 5 ms, which a core shared with CPU-bound work (ours or other
 * people's) shows and a quiet core does not.
 */
export const DEFAULT_SHARING_THRESHOLDS: Readonly<SharingThresholds> = Object.freeze({
  longMs: 10,
  contendedFraction: 0.02,
  noticeableMs: 5,
  sharedFraction: 0.01,
});

export interface SharingVerdict {
  mode: SharingMode;
  samples: number;
  /** Oversleep quantiles in ms (time past the requested interval). */
  p50Ms: number;
  p99Ms: number;
  p999Ms: number;
  maxMs: number;
  /** Count and share of sleeps that overslept by more than `noticeableMs` / `longMs`. */
  noticeableCount: number;
  noticeableFraction: number;
  longCount: number;
  longFraction: number;
  thresholds: SharingThresholds;
}

function quantileSorted(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return 0;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i] ?? 0;
}

/**
 * Classifies a host from measured oversleeps (ms past the requested sleep). Pure: O(n log n) for
 * the quantiles. No samples gives `dedicated` with zero counts: there is no evidence of sharing,
 * and callers should not probe with zero samples anyway.
 */
export function classifySharing(
  oversleepMs: ArrayLike<number>,
  thresholds: SharingThresholds = DEFAULT_SHARING_THRESHOLDS,
): SharingVerdict {
  const sorted = Float64Array.from(oversleepMs).sort();
  const n = sorted.length;
  let noticeableCount = 0;
  let longCount = 0;
  for (const x of sorted) {
    if (x > thresholds.noticeableMs) noticeableCount++;
    if (x > thresholds.longMs) longCount++;
  }
  const noticeableFraction = n === 0 ? 0 : noticeableCount / n;
  const longFraction = n === 0 ? 0 : longCount / n;
  let mode: SharingMode = 'dedicated';
  if (n > 0 && longFraction >= thresholds.contendedFraction) mode = 'contended';
  else if (n > 0 && noticeableFraction >= thresholds.sharedFraction) mode = 'shared';
  return {
    mode,
    samples: n,
    p50Ms: quantileSorted(sorted, 0.5),
    p99Ms: quantileSorted(sorted, 0.99),
    p999Ms: quantileSorted(sorted, 0.999),
    maxMs: n === 0 ? 0 : (sorted[n - 1] ?? 0),
    noticeableCount,
    noticeableFraction,
    longCount,
    longFraction,
    thresholds: { ...thresholds },
  };
}

export interface ProbeOptions {
  /** Number of sleeps (default 2,000: about 2.5 s on an idle host). */
  samples?: number;
  /** Requested sleep in ms (default 1, the smallest timer Node offers). */
  intervalMs?: number;
  /** Stop early after this long, whatever the sample count (default 15 s). */
  maxDurationMs?: number;
  thresholds?: SharingThresholds;
}

/**
 * Measures this process's timer oversleeps and classifies the host. Run it with the CPU affinity
 * and priority of the services it stands for (same `taskset`/`nice`/cgroup): the verdict is about
 * where this process is scheduled. Resolves after `samples` sleeps or `maxDurationMs`.
 */
export async function probeSharing(opts: ProbeOptions = {}): Promise<SharingVerdict> {
  const samples = opts.samples ?? 2000;
  const intervalMs = opts.intervalMs ?? 1;
  const maxDurationMs = opts.maxDurationMs ?? 15_000;
  if (!Number.isInteger(samples) || samples < 1) {
    throw new Error(`samples must be a positive integer, got ${String(samples)}`);
  }
  if (!(intervalMs >= 1) || !(maxDurationMs > 0)) {
    throw new Error('intervalMs must be >= 1 and maxDurationMs > 0');
  }
  const oversleep = new Float64Array(samples);
  const deadline = performance.now() + maxDurationMs;
  let n = 0;
  await new Promise<void>((resolve) => {
    let asked = performance.now();
    const tick = () => {
      const now = performance.now();
      oversleep[n++] = Math.max(0, now - asked - intervalMs);
      if (n >= samples || now >= deadline) {
        resolve();
        return;
      }
      asked = performance.now();
      setTimeout(tick, intervalMs);
    };
    setTimeout(tick, intervalMs);
  });
  return classifySharing(oversleep.subarray(0, n), opts.thresholds);
}

/** The sleep loop as plain JavaScript, for a worker thread (no TypeScript loader needed there). */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { samples, intervalMs, maxDurationMs } = workerData;
const out = new Float64Array(samples);
const deadline = performance.now() + maxDurationMs;
let n = 0;
let asked = performance.now();
const tick = () => {
  const now = performance.now();
  out[n++] = Math.max(0, now - asked - intervalMs);
  if (n >= samples || now >= deadline) {
    parentPort.postMessage(out.subarray(0, n));
    return;
  }
  asked = performance.now();
  setTimeout(tick, intervalMs);
};
setTimeout(tick, intervalMs);
`;

/**
 * The same probe in a worker thread of this process. A busy service cannot be probed on its
 * own event loop (its requests, GC pauses and long tasks would read as sharing), and probing it
 * idle misses what matters under a fair scheduler: a process that has been using CPU waits longer
 * at each wake-up than an idle one. The worker shares the process's core, priority and scheduling
 * group, but not its event loop or heap, so it measures the scheduling the service gets while
 * it serves.
 */
export async function probeSharingInWorker(opts: ProbeOptions = {}): Promise<SharingVerdict> {
  const { Worker } = await import('node:worker_threads');
  const samples = opts.samples ?? 2000;
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      samples,
      intervalMs: opts.intervalMs ?? 1,
      maxDurationMs: opts.maxDurationMs ?? 15_000,
    },
  });
  try {
    const oversleep = await new Promise<Float64Array>((resolve, reject) => {
      worker.once('message', (m: Float64Array) => {
        resolve(m);
      });
      worker.once('error', reject);
      worker.once('exit', (code) => {
        reject(new Error(`probe worker exited with code ${String(code)}`));
      });
    });
    return classifySharing(oversleep, opts.thresholds);
  } finally {
    await worker.terminate();
  }
}

/** Resource attributes for services on the probed host (`host.sharing_mode` is what Tailscope reads). */
export function sharingResourceAttributes(v: SharingVerdict): Record<string, string | number> {
  return {
    'host.sharing_mode': v.mode,
    'host.sharing_probe.samples': v.samples,
    'host.sharing_probe.p99_ms': round2(v.p99Ms),
    'host.sharing_probe.p999_ms': round2(v.p999Ms),
    'host.sharing_probe.long_fraction': round5(v.longFraction),
  };
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
function round5(x: number): number {
  return Math.round(x * 1e5) / 1e5;
}

const MODES: readonly string[] = ['dedicated', 'shared', 'contended'];

/** Parses a configured mode (`--sharing-mode`, env), with an error naming the bad value. */
export function parseSharingMode(raw: string): SharingMode {
  if (MODES.includes(raw)) return raw as SharingMode;
  throw new Error(`sharing mode must be one of ${MODES.join(', ')}, got ${JSON.stringify(raw)}`);
}
