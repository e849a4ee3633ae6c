import { SamplingDecision, type Sampler, type SamplingResult } from '@opentelemetry/sdk-trace';

/**
 * Whether this process records traces yet. The demo warms its cluster up before recording (a
 * start-up storm would otherwise fill the first minute's data: seconds-long fan-outs, timeouts,
 * every leaf looking contended), and the cut has to fall between whole fan-outs, not through
 * them. So the gate is a root sampler: while closed, a trace that starts here (a fan-out at the
 * root, a GC pause or compaction at a leaf) is not sampled, and the W3C `traceparent` flag makes
 * every leaf's server span of that fan-out unsampled too (the providers sample parent-based).
 */
export class RecordingGate implements Sampler {
  constructor(private open: boolean) {}

  /** Traces starting from now on are recorded. */
  start(): void {
    this.open = true;
  }

  get recording(): boolean {
    return this.open;
  }

  shouldSample(): SamplingResult {
    return {
      decision: this.open ? SamplingDecision.RECORD_AND_SAMPLED : SamplingDecision.NOT_RECORD,
    };
  }

  toString(): string {
    return `RecordingGate{${this.open ? 'recording' : 'warming up'}}`;
  }
}
