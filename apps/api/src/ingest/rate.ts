/**
 * Accepted spans per second over the last minute: 60 one-second buckets in a ring. Before a
 * minute has passed since start, the rate is over the time elapsed so far.
 */
export class RateMeter {
  private readonly buckets = new Float64Array(60);
  private currentSecond: number;
  private readonly startedMs: number;

  constructor(private readonly now: () => number = Date.now) {
    this.startedMs = now();
    this.currentSecond = Math.floor(this.startedMs / 1000);
  }

  private advance(): number {
    const second = Math.floor(this.now() / 1000);
    if (second !== this.currentSecond) {
      const gap = Math.min(60, second - this.currentSecond);
      for (let i = 1; i <= gap; i++) this.buckets[(this.currentSecond + i) % 60] = 0;
      this.currentSecond = second;
    }
    return second;
  }

  record(n: number): void {
    const second = this.advance();
    this.buckets[second % 60] = (this.buckets[second % 60] ?? 0) + n;
  }

  perSecond(): number {
    this.advance();
    let sum = 0;
    for (const v of this.buckets) sum += v;
    const elapsed = Math.min(60, Math.max(1, (this.now() - this.startedMs) / 1000));
    return sum / elapsed;
  }
}
