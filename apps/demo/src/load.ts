import { Agent, get } from 'node:http';

/**
 * Steady open-loop load on the root: requests leave on a fixed schedule whatever the answers do
 * (a closed loop would slow down with the tail and hide it). Requests beyond `maxInFlight` are
 * dropped and counted, so a stalled cluster cannot pile up sockets without bound.
 */

export interface LoadSnapshot {
  sent: number;
  ok: number;
  failed: number;
  dropped: number;
  inFlight: number;
  /** Fan-out latency quantiles (ms) over the answers since the previous snapshot; NaN if none. */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  answers: number;
}

export class LoadGenerator {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 512 });
  private timer: NodeJS.Timeout | undefined;
  private sent = 0;
  private ok = 0;
  private failed = 0;
  private dropped = 0;
  private inFlight = 0;
  private window: number[] = [];
  private startedAt = 0;
  private idle: (() => void) | null = null;

  constructor(
    private readonly rootUrl: string,
    private readonly ratePerS: number,
    private readonly maxInFlight = 500,
  ) {
    if (!(ratePerS > 0 && ratePerS <= 5000)) {
      throw new Error(`--rate must be between 0 and 5000 requests/s, got ${String(ratePerS)}`);
    }
  }

  start(): void {
    this.startedAt = performance.now();
    const tick = () => {
      // Send everything due by now: timers fire late under load, the schedule does not slip.
      const due = Math.floor(((performance.now() - this.startedAt) * this.ratePerS) / 1000);
      while (this.sent + this.dropped < due) this.fire();
      const nextAt = this.startedAt + ((this.sent + this.dropped + 1) * 1000) / this.ratePerS;
      this.timer = setTimeout(tick, Math.max(0, nextAt - performance.now()));
    };
    tick();
  }

  private fire(): void {
    if (this.inFlight >= this.maxInFlight) {
      this.dropped++;
      return;
    }
    this.sent++;
    this.inFlight++;
    const t0 = performance.now();
    const done = (good: boolean) => {
      this.inFlight--;
      if (good) {
        this.ok++;
        this.window.push(performance.now() - t0);
      } else this.failed++;
      if (this.inFlight === 0) this.idle?.();
    };
    const q = Math.floor(Math.random() * 1e6);
    const req = get(`${this.rootUrl}/fanout?q=${String(q)}`, { agent: this.agent }, (res) => {
      res.resume();
      res.once('end', () => {
        done(res.statusCode === 200);
      });
      res.once('error', () => {
        done(false);
      });
    });
    req.once('error', () => {
      done(false);
    });
  }

  snapshot(): LoadSnapshot {
    const w = this.window.sort((a, b) => a - b);
    this.window = [];
    const q = (p: number) =>
      w.length === 0 ? NaN : (w[Math.min(w.length - 1, Math.ceil(p * w.length) - 1)] ?? NaN);
    return {
      sent: this.sent,
      ok: this.ok,
      failed: this.failed,
      dropped: this.dropped,
      inFlight: this.inFlight,
      p50Ms: q(0.5),
      p99Ms: q(0.99),
      maxMs: w.at(-1) ?? NaN,
      answers: w.length,
    };
  }

  /** Stops sending and waits (at most `graceMs`) for the requests in flight. */
  async stop(graceMs = 5000): Promise<void> {
    clearTimeout(this.timer);
    if (this.inFlight > 0) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, graceMs);
        this.idle = () => {
          clearTimeout(t);
          resolve();
        };
      });
    }
    this.agent.destroy();
  }
}
