import { probeSharingInWorker, type SharingMode } from '@tailscope/collectors';
import type { DemoChild } from './child';
import type { ChildMessage } from './messages';
import { judgeProbes, type ProbeBaseline, type ProbeReading } from './probe-judge';

/**
 * The probe's calm baseline: the same probe the leaves run, here in the supervisor before any
 * child starts (no hog, no load), so it shows what this machine's timers do at rest.
 */
export async function measureProbeBaseline(samples = 1000): Promise<ProbeBaseline> {
  const v = await probeSharingInWorker({ samples, maxDurationMs: 5000 });
  return { longFraction: v.longFraction, noticeableFraction: v.noticeableFraction };
}

export interface ProbedLeaf {
  name: string;
  onHogCore: boolean;
  child: DemoChild;
}

/**
 * Collects one probe reading per leaf, rules on them together (probe-judge.ts) and answers each
 * leaf with its mode; on a saturated machine asks every leaf to measure again, up to
 * `maxAttempts` readings, then rules every leaf `unknown` and says why.
 */
export class ProbeCoordinator {
  private readings = new Map<string, ProbeReading>();
  private attempts = 1;
  private settled = false;

  constructor(
    private readonly leaves: readonly ProbedLeaf[],
    private readonly baseline: ProbeBaseline | null,
    private readonly pinned: boolean,
    private readonly log: (line: string) => void,
    private readonly maxAttempts = 3,
  ) {
    for (const leaf of leaves) {
      leaf.child.onMessage((m) => {
        this.onMessage(leaf, m);
      });
    }
  }

  /** Every leaf has its ruling (or probing is off). */
  get done(): boolean {
    return this.settled || this.leaves.length === 0;
  }

  private onMessage(leaf: ProbedLeaf, m: ChildMessage): void {
    if (m.type !== 'probe-result' || this.settled) return;
    this.readings.set(leaf.name, {
      process: leaf.name,
      onHogCore: leaf.onHogCore,
      longFraction: m.probe.longFraction,
      noticeableFraction: m.probe.noticeableFraction,
    });
    if (this.readings.size === this.leaves.length) this.rule();
  }

  private rule(): void {
    const ruling = judgeProbes([...this.readings.values()], this.baseline, this.pinned);
    if (ruling.kind === 'modes') {
      this.answer((name) => ruling.modes.get(name) ?? 'unknown');
      return;
    }
    const why = `${ruling.offenders.join(', ')} ${ruling.offenders.length === 1 ? 'reads' : 'read'} contended away from the hogs`;
    if (this.attempts < this.maxAttempts) {
      this.attempts++;
      this.log(
        `probe: the whole machine is saturated (${why}); not blaming one leaf, measuring again (${String(this.attempts)} of ${String(this.maxAttempts)})`,
      );
      this.readings.clear();
      for (const leaf of this.leaves) leaf.child.send({ type: 'reprobe' });
      return;
    }
    this.log(
      `probe: the whole machine stayed saturated (${why}); every leaf's sharing mode is unknown rather than one leaf blamed`,
    );
    this.answer(() => 'unknown');
  }

  /** Ends probing now: leaves without a ruling get `unknown` (the warm-up's cap was reached). */
  giveUp(): void {
    if (this.settled) return;
    this.log('probe: no ruling before the warm-up ended; sharing modes unknown');
    this.answer(() => 'unknown');
  }

  private answer(mode: (name: string) => SharingMode | 'unknown'): void {
    this.settled = true;
    for (const leaf of this.leaves)
      leaf.child.send({ type: 'sharing-verdict', mode: mode(leaf.name) });
  }
}
