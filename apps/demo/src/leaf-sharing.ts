import { probeSharingInWorker, type SharingMode, type SharingVerdict } from '@tailscope/collectors';
import type { DetectedResourceAttributes } from '@opentelemetry/resources';
import { send } from './child-ipc';
import type { LeafConfig, SupervisorMessage } from './messages';

/**
 * The leaf's `host.sharing_mode`, measured while it serves. The resource attributes are promises
 * (OpenTelemetry JS resources may hold async attributes; the batch processor waits for them
 * before it exports), so the leaf serves from the start and its spans leave with the measured
 * mode a few seconds later. The probe runs in a worker thread: it shares the leaf's core,
 * priority and scheduling group, not its event loop, so GC and compaction do not read as sharing.
 *
 * The leaf does not judge its own reading: it sends it to the supervisor, which compares every
 * leaf against the probe's calm baseline (measured before the cluster started) and against each
 * other, and answers with the mode, or asks for another reading when the whole machine was
 * saturated (probe-judge.ts).
 */
export class LeafSharing {
  readonly attributes: DetectedResourceAttributes;
  private resolve: ((v: SharingVerdict | SharingMode | 'unknown') => void) | null = null;
  private timer: NodeJS.Timeout | undefined;
  private started = false;
  private last: SharingVerdict | null = null;

  constructor(private readonly config: LeafConfig) {
    if (config.sharingMode !== 'probe') {
      this.attributes = { 'host.sharing_mode': config.sharingMode };
      send({ type: 'sharing-mode', sharingMode: config.sharingMode, probe: null });
      return;
    }
    const outcome = new Promise<SharingVerdict | SharingMode | 'unknown'>((resolve) => {
      this.resolve = resolve;
    });
    const verdict = outcome.then((v) => (typeof v === 'string' ? this.last : v));
    const round = (x: number, k: number) => Math.round(x * k) / k;
    this.attributes = {
      'host.sharing_mode': outcome.then((v) => (typeof v === 'string' ? v : v.mode)),
      'host.sharing_probe.samples': verdict.then((v) => v?.samples),
      'host.sharing_probe.p99_ms': verdict.then((v) => (v ? round(v.p99Ms, 100) : undefined)),
      'host.sharing_probe.long_fraction': verdict.then((v) =>
        v ? round(v.longFraction, 1e5) : undefined,
      ),
    };
    process.on('message', (msg: SupervisorMessage) => {
      if (msg.type === 'sharing-verdict') this.settle(msg.mode);
      else if (msg.type === 'reprobe') this.measure();
    });
  }

  /** Called on every request: the first one schedules the probe. */
  onRequest(): void {
    if (this.started || !this.resolve) return;
    this.started = true;
    this.timer = setTimeout(() => {
      this.measure();
    }, this.config.probeDelayMs);
  }

  /** One reading, sent to the supervisor for its ruling. */
  private measure(): void {
    if (!this.resolve) return;
    probeSharingInWorker({ samples: this.config.probeSamples }).then(
      (v) => {
        this.last = v;
        send({
          type: 'probe-result',
          mode: v.mode,
          probe: {
            p99Ms: v.p99Ms,
            longFraction: v.longFraction,
            noticeableFraction: v.noticeableFraction,
            samples: v.samples,
          },
        });
      },
      () => {
        this.settle('unknown');
      },
    );
  }

  /**
   * Resolves the mode: the supervisor's ruling, or `unknown` (Tailscope's default) when stopping
   * before one came. The last reading, if any, goes out with it.
   */
  settle(mode: SharingMode | 'unknown'): void {
    clearTimeout(this.timer);
    const resolve = this.resolve;
    if (!resolve) return;
    this.resolve = null;
    const last = this.last;
    resolve(last && mode !== 'unknown' ? { ...last, mode } : mode);
    send({
      type: 'sharing-mode',
      sharingMode: mode,
      probe: last
        ? { p99Ms: last.p99Ms, longFraction: last.longFraction, samples: last.samples }
        : null,
    });
  }
}
