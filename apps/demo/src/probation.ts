import type { ProbationOptions } from './messages';

/**
 * Latency-induced probation (Dean and Barroso, "The Tail at Scale"): watch each host's recent
 * call latency; put a host whose latency stands out on probation (the root stops sending it real
 * work, its shard's other replicas answer instead) while shadow requests keep measuring it; let
 * it back once it has looked healthy for a hold time. Pure: time comes in as an argument.
 */

/** At least this many calls in a host's window before its latency is judged. */
export const MIN_SAMPLES = 5;

interface HostWindow {
  shard: number;
  t: number[];
  ms: number[];
  excludedAt: number | null;
  healthySince: number | null;
  /** The window p90 when the host was excluded (for the record). */
  excludedP90: number;
}

export interface ProbationEpisode {
  host: string;
  fromMs: number;
  toMs: number;
  p90AtExclusionMs: number;
  thresholdMs: number;
}

function p90(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(0.9 * sorted.length) - 1)] ?? 0;
}

export class ProbationTracker {
  private readonly hosts = new Map<string, HostWindow>();
  private readonly replicas = new Map<number, number>();
  private lastThresholdMs = 0;
  exclusions = 0;

  constructor(
    hosts: readonly { host: string; shard: number }[],
    private readonly opts: ProbationOptions,
  ) {
    for (const h of hosts) {
      this.hosts.set(h.host, {
        shard: h.shard,
        t: [],
        ms: [],
        excludedAt: null,
        healthySince: null,
        excludedP90: 0,
      });
      this.replicas.set(h.shard, (this.replicas.get(h.shard) ?? 0) + 1);
    }
  }

  /** One finished call (real or shadow) to `host`, taking `latencyMs`, finished at `nowMs`. */
  record(host: string, latencyMs: number, nowMs: number): void {
    const w = this.hosts.get(host);
    if (!w) return;
    w.t.push(nowMs);
    w.ms.push(latencyMs);
  }

  isExcluded(host: string): boolean {
    return this.hosts.get(host)?.excludedAt != null;
  }

  excludedHosts(): string[] {
    return [...this.hosts].filter(([, w]) => w.excludedAt !== null).map(([h]) => h);
  }

  thresholdMs(): number {
    return this.lastThresholdMs;
  }

  /**
   * Drops samples older than the window, then excludes hosts above the threshold (worst first,
   * within each shard's cap) and returns hosts healthy for the hold time. Returns the episodes
   * that ended. O(calls in window x log) per call.
   */
  evaluate(nowMs: number): { excluded: string[]; returned: ProbationEpisode[] } {
    const stat = new Map<string, number>();
    for (const [host, w] of this.hosts) {
      let drop = 0;
      while (drop < w.t.length && (w.t[drop] ?? 0) < nowMs - this.opts.windowMs) drop++;
      if (drop > 0) {
        w.t.splice(0, drop);
        w.ms.splice(0, drop);
      }
      if (w.ms.length >= MIN_SAMPLES) stat.set(host, p90(w.ms));
    }
    const healthyStats = [...stat].filter(([h]) => !this.isExcluded(h)).map(([, v]) => v);
    if (healthyStats.length === 0) return { excluded: [], returned: [] };
    healthyStats.sort((a, b) => a - b);
    const median = healthyStats[Math.floor((healthyStats.length - 1) / 2)] ?? 0;
    const threshold = Math.max(this.opts.minLatencyMs, this.opts.factor * median);
    this.lastThresholdMs = threshold;

    const returned: ProbationEpisode[] = [];
    for (const [host, w] of this.hosts) {
      if (w.excludedAt === null) continue;
      const s = stat.get(host);
      // No shadow evidence yet counts as not healthy: a host returns on measurements, not hope.
      if (s === undefined || s > threshold) {
        w.healthySince = null;
        continue;
      }
      w.healthySince ??= nowMs;
      if (nowMs - w.healthySince >= this.opts.holdMs) {
        returned.push({
          host,
          fromMs: w.excludedAt,
          toMs: nowMs,
          p90AtExclusionMs: w.excludedP90,
          thresholdMs: threshold,
        });
        w.excludedAt = null;
        w.healthySince = null;
      }
    }

    const candidates = [...stat]
      .filter(([h, v]) => v > threshold && !this.isExcluded(h))
      .sort((a, b) => b[1] - a[1]);
    const excluded: string[] = [];
    for (const [host, v] of candidates) {
      const w = this.hosts.get(host);
      if (!w) continue;
      const cap = Math.floor(this.opts.maxExcludedFraction * (this.replicas.get(w.shard) ?? 0));
      const already = [...this.hosts.values()].filter(
        (o) => o.shard === w.shard && o.excludedAt !== null,
      ).length;
      if (already >= cap) continue;
      w.excludedAt = nowMs;
      w.healthySince = null;
      w.excludedP90 = v;
      this.exclusions++;
      excluded.push(host);
    }
    return { excluded, returned };
  }

  /** Episodes still open at `nowMs` (for the record when the run stops). */
  openEpisodes(nowMs: number): ProbationEpisode[] {
    return [...this.hosts]
      .filter(([, w]) => w.excludedAt !== null)
      .map(([host, w]) => ({
        host,
        fromMs: w.excludedAt ?? nowMs,
        toMs: nowMs,
        p90AtExclusionMs: w.excludedP90,
        thresholdMs: this.lastThresholdMs,
      }));
  }
}
