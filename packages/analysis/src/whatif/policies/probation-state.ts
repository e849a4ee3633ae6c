/**
 * Which hosts are on probation, and the rule that moves them in and out.
 */

import type { HostWindowStats } from '../estimate';
import type { ResolvedPolicy } from './policy';

type ProbationParams = Extract<ResolvedPolicy, { kind: 'probation' }>;

/**
 * Which hosts are on probation, and the rule that moves them in and out. Judged at the end of
 * each interval k on the window's histograms:
 * - slow means above max(minLatencyMs, threshold x reference), where
 * - the fleet reference is the median (lower, nearest-rank) of the percentile over hosts NOT on
 *   probation with at least minCalls calls; with fewer than 3 such hosts nobody is judged;
 * - a host on probation is healthy when it has at least minShadowCalls shadow calls in the
 *   window and its percentile is not slow (fewer calls: not healthy); healthy for holdSeconds
 *   -> returns;
 * - then healthy hosts that are slow go on probation, worst first, while fewer
 *   than max(1, floor(maxEjectedFraction x hosts seen)) hosts are out (never all of them).
 */
export class ProbationState {
  /** 1 while a host is on probation. */
  readonly out: Uint8Array;
  private readonly since: Int32Array; // interval a host went out, -1 when in
  private readonly healthySince: Float64Array; // seconds, NaN when not (yet) healthy
  private readonly seconds: Float64Array;
  private readonly cap: number;
  private readonly minShadow: number;
  private outCount = 0;
  private firstCounted = 0; // intervals before it (warm-up) are not counted
  private readonly q: Float64Array;

  constructor(
    private readonly p: ProbationParams,
    readonly hosts: number,
    readonly hostsSeen: number,
  ) {
    this.out = new Uint8Array(hosts);
    this.since = new Int32Array(hosts).fill(-1);
    this.healthySince = new Float64Array(hosts).fill(Number.NaN);
    this.seconds = new Float64Array(hosts);
    this.q = new Float64Array(hosts);
    this.cap = Math.min(
      Math.max(1, Math.floor(p.maxEjectedFraction * hostsSeen)),
      Math.max(0, hostsSeen - 1),
    );
    this.minShadow = p.minShadowCalls;
  }

  evaluate(stats: HostWindowStats, k: number): void {
    const q = this.p.percentile / 100;
    const fleet: number[] = [];
    for (let h = 0; h < this.hosts; h++) {
      const need = this.out[h] === 1 ? this.minShadow : this.p.minCalls;
      const qh = stats.count[h]! >= need ? stats.quantile(h, q) : Number.NaN;
      this.q[h] = qh;
      if (this.out[h] === 0 && !Number.isNaN(qh)) fleet.push(qh);
    }
    if (fleet.length < 3) return;
    fleet.sort((a, b) => a - b);
    const limit = Math.max(
      this.p.minLatencyMs,
      this.p.threshold * fleet[Math.ceil(fleet.length / 2) - 1]!,
    );
    const now = (k + 1) * this.p.intervalSeconds;
    for (let h = 0; h < this.hosts; h++) {
      const qh = this.q[h]!;
      if (this.out[h] === 0) continue;
      // Too few shadow calls counts as not healthy: a host returns on measurements, not hope.
      if (Number.isNaN(qh) || qh > limit) this.healthySince[h] = Number.NaN;
      else {
        if (Number.isNaN(this.healthySince[h])) this.healthySince[h] = now;
        if (now - this.healthySince[h]! >= this.p.holdSeconds) this.release(h, k);
      }
    }
    const slow: number[] = [];
    for (let h = 0; h < this.hosts; h++) if (this.out[h] === 0 && this.q[h]! > limit) slow.push(h);
    slow.sort((a, b) => this.q[b]! - this.q[a]! || a - b);
    for (const h of slow) {
      if (this.outCount >= this.cap) break;
      this.out[h] = 1;
      this.since[h] = k + 1;
      this.healthySince[h] = Number.NaN;
      this.outCount++;
    }
  }

  /** Probation seconds count from interval k on (earlier ones are warm-up). */
  countFrom(k: number): void {
    this.firstCounted = k;
  }

  private accrue(h: number, throughK: number): void {
    const from = Math.max(this.since[h]!, this.firstCounted);
    if (throughK + 1 > from) this.seconds[h]! += (throughK + 1 - from) * this.p.intervalSeconds;
  }

  private release(h: number, k: number): void {
    this.accrue(h, k);
    this.out[h] = 0;
    this.since[h] = -1;
    this.healthySince[h] = Number.NaN;
    this.outCount--;
  }

  /** Seconds on probation per host, counting hosts still out through interval lastK. */
  finish(lastK: number): Float64Array {
    for (let h = 0; h < this.hosts; h++) {
      if (this.out[h] === 1) this.accrue(h, lastK);
    }
    return this.seconds;
  }
}
