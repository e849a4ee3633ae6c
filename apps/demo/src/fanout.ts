import { setMaxListeners } from 'node:events';
import type { LeafClient } from './leaf-client';
import type { Arm, LeafEndpoint, RootConfig, RootStats } from './messages';
import { hedgedCall, type HedgeOutcome } from './hedged-call';
import { ProbationTracker, type ProbationEpisode } from './probation';

/**
 * The root's fan-out: one call per shard to one of the shard's replicas, wait for all. Under the
 * `hedge` policy a call still outstanding after the hedge delay gets a backup to another replica
 * and the first answer wins (hedgedCall: the loser finishes unread, or is cancelled).
 * Under `probation` calls avoid excluded hosts and some of them go to the excluded host as
 * shadows, whose latencies decide when it comes back. With a control fraction, that share of
 * fan-outs (drawn one by one) is served without the policy and every call is marked with its
 * fan-out's arm: a randomized A/B in one run, both groups on the same machine at the same time.
 */

/** Recent call latencies for a percentile hedge delay: a ring of the last `size` calls. */
export class RecentLatencies {
  private readonly ring: Float64Array;
  private n = 0;
  constructor(size: number) {
    this.ring = new Float64Array(size);
  }
  add(ms: number): void {
    this.ring[this.n % this.ring.length] = ms;
    this.n++;
  }
  count(): number {
    return Math.min(this.n, this.ring.length);
  }
  /** The q-th percentile (0-100) of what the ring holds; NaN when empty. O(size log size). */
  percentile(q: number): number {
    const k = this.count();
    if (k === 0) return NaN;
    const sorted = this.ring.slice(0, k).sort();
    return sorted[Math.min(k - 1, Math.max(0, Math.ceil((q / 100) * k) - 1))] ?? NaN;
  }
}

function randomOf<T>(items: readonly T[]): T | undefined {
  return items[Math.floor(Math.random() * items.length)];
}

export class FanoutRunner {
  private readonly byShard = new Map<number, LeafEndpoint[]>();
  private readonly recent = new RecentLatencies(2000);
  private hedgeDelayMs: number;
  readonly probation: ProbationTracker | null;
  readonly stats: RootStats;

  constructor(
    private readonly client: LeafClient,
    private readonly config: RootConfig,
  ) {
    for (const ep of config.leaves) {
      const list = this.byShard.get(ep.shard) ?? [];
      list.push(ep);
      this.byShard.set(ep.shard, list);
    }
    this.hedgeDelayMs = config.hedge.delayMs;
    this.probation =
      config.policy === 'probation' ? new ProbationTracker(config.leaves, config.probation) : null;
    this.stats = {
      fanouts: 0,
      fanoutErrors: 0,
      calls: 0,
      hedgesSent: 0,
      hedgesWon: 0,
      shadowsSent: 0,
      excluded: [],
      exclusions: 0,
      hedgeDelayMs: config.policy === 'hedge' ? this.hedgeDelayMs : null,
      controlFanouts: 0,
    };
  }

  /** Once a second: the percentile hedge delay follows recent latency; probation is judged. */
  tick(nowMs: number): ProbationEpisode[] {
    const pct = this.config.hedge.percentile;
    if (this.config.policy === 'hedge' && pct !== null && this.recent.count() >= 200) {
      this.hedgeDelayMs = Math.max(1, this.recent.percentile(pct));
      this.stats.hedgeDelayMs = Math.round(this.hedgeDelayMs * 10) / 10;
    }
    if (!this.probation) return [];
    const { returned } = this.probation.evaluate(nowMs);
    this.stats.excluded = this.probation.excludedHosts();
    this.stats.exclusions = this.probation.exclusions;
    return returned;
  }

  /** One fan-out of `width` calls; resolves when all answered, rejects if any call failed. */
  async run(query: number): Promise<void> {
    let arm: Arm | undefined;
    if (this.config.controlFraction > 0) {
      arm = Math.random() < this.config.controlFraction ? 'control' : 'treatment';
      if (arm === 'control') this.stats.controlFanouts++;
    }
    const deadline = new AbortController();
    // Every call carries the deadline as its signal: up to two copies per shard under hedging.
    setMaxListeners(2 * this.config.width + 1, deadline.signal);
    const timer = setTimeout(() => {
      deadline.abort(new Error('fan-out deadline'));
    }, this.config.callTimeoutMs);
    try {
      const calls: Promise<unknown>[] = [];
      for (let shard = 0; shard < this.config.width; shard++) {
        calls.push(this.callShard(shard, query, deadline.signal, arm));
      }
      await Promise.all(calls);
      this.stats.fanouts++;
    } catch (err) {
      this.stats.fanoutErrors++;
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  private replicas(shard: number): LeafEndpoint[] {
    return this.byShard.get(shard) ?? [];
  }

  private async callShard(
    shard: number,
    query: number,
    deadline: AbortSignal,
    arm: Arm | undefined,
  ): Promise<void> {
    const replicas = this.replicas(shard);
    const pick = randomOf(replicas);
    if (!pick) throw new Error(`shard ${String(shard)} has no replicas`);
    this.stats.calls++;
    if (arm === 'control') {
      // The control group: the recorded replica, no policy, and nothing learned from it (the
      // tracker judges hosts on the treatment group's calls, as the replay of the control does).
      this.recent.add(await this.client.call(pick, query, { shard, arm }, deadline));
      return;
    }
    if (this.config.policy === 'hedge') {
      const out = await this.hedged(pick, shard, query, deadline, arm);
      this.recent.add(out.latencyMs);
      return;
    }
    let target = pick;
    const probation = this.probation;
    if (probation?.isExcluded(pick.host)) {
      const healthy = replicas.filter((r) => !probation.isExcluded(r.host));
      target = randomOf(healthy) ?? pick;
      if (target !== pick && Math.random() < this.config.probation.shadowFraction) {
        this.shadow(pick, shard, query, arm);
      }
    }
    const ms = await this.client.call(target, query, { shard, arm }, deadline);
    this.recent.add(ms);
    probation?.record(target.host, ms, Date.now());
  }

  /** A shadow request: not awaited, measured for probation, marked `tailscope.shadow=true`. */
  private shadow(ep: LeafEndpoint, shard: number, query: number, arm: Arm | undefined): void {
    this.stats.shadowsSent++;
    this.client
      .call(ep, query, { shard, shadow: true, arm }, AbortSignal.timeout(this.config.callTimeoutMs))
      .then(
        (ms) => this.probation?.record(ep.host, ms, Date.now()),
        () => this.probation?.record(ep.host, this.config.callTimeoutMs, Date.now()),
      );
  }

  private async hedged(
    primary: LeafEndpoint,
    shard: number,
    query: number,
    deadline: AbortSignal,
    arm: Arm | undefined,
  ): Promise<HedgeOutcome> {
    const out = await hedgedCall(this.client, {
      primary,
      backup: () => randomOf(this.replicas(shard).filter((r) => r.host !== primary.host)),
      shard,
      query,
      delayMs: this.hedgeDelayMs,
      deadline,
      cancel: this.config.hedge.cancel,
      loserTimeoutMs: this.config.callTimeoutMs,
      arm,
      onBackupSent: () => {
        this.stats.hedgesSent++;
      },
    });
    if (out.backupWon) this.stats.hedgesWon++;
    return out;
  }
}
