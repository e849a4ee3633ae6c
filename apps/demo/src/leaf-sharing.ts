import { probeSharingInWorker, type SharingMode, type SharingVerdict } from '@tailscope/collectors';
import type { DetectedResourceAttributes } from '@opentelemetry/resources';
import { send } from './child-ipc';
import type { LeafConfig } from './messages';

/**
 * The leaf's `host.sharing_mode`, measured while it serves. The resource attributes are promises
 * (OpenTelemetry JS resources may hold async attributes; the batch processor waits for them
 * before it exports), so the leaf serves from the start and its spans leave with the measured
 * mode a few seconds later. The probe runs in a worker thread: it shares the leaf's core,
 * priority and scheduling group, not its event loop, so GC and compaction do not read as sharing.
 */
export class LeafSharing {
  readonly attributes: DetectedResourceAttributes;
  private resolve: ((v: SharingVerdict | SharingMode | 'unknown') => void) | null = null;
  private timer: NodeJS.Timeout | undefined;
  private started = false;

  constructor(private readonly config: LeafConfig) {
    if (config.sharingMode !== 'probe') {
      this.attributes = { 'host.sharing_mode': config.sharingMode };
      send({ type: 'sharing-mode', sharingMode: config.sharingMode, probe: null });
      return;
    }
    const outcome = new Promise<SharingVerdict | SharingMode | 'unknown'>((resolve) => {
      this.resolve = resolve;
    });
    const verdict = outcome.then((v) => (typeof v === 'string' ? null : v));
    const round = (x: number, k: number) => Math.round(x * k) / k;
    this.attributes = {
      'host.sharing_mode': outcome.then((v) => (typeof v === 'string' ? v : v.mode)),
      'host.sharing_probe.samples': verdict.then((v) => v?.samples),
      'host.sharing_probe.p99_ms': verdict.then((v) => (v ? round(v.p99Ms, 100) : undefined)),
      'host.sharing_probe.long_fraction': verdict.then((v) =>
        v ? round(v.longFraction, 1e5) : undefined,
      ),
    };
  }

  /** Called on every request: the first one schedules the probe. */
  onRequest(): void {
    if (this.started || !this.resolve) return;
    this.started = true;
    this.timer = setTimeout(() => {
      probeSharingInWorker({ samples: this.config.probeSamples }).then(
        (v) => {
          this.settle(v);
        },
        () => {
          this.settle('unknown');
        },
      );
    }, this.config.probeDelayMs);
  }

  /** Resolves the mode now if the probe has not (stopping early): `unknown`, Tailscope's default. */
  settle(v: SharingVerdict | 'unknown'): void {
    clearTimeout(this.timer);
    const resolve = this.resolve;
    if (!resolve) return;
    this.resolve = null;
    resolve(v);
    send({
      type: 'sharing-mode',
      sharingMode: typeof v === 'string' ? v : v.mode,
      probe:
        typeof v === 'string'
          ? null
          : { p99Ms: v.p99Ms, longFraction: v.longFraction, samples: v.samples },
    });
  }
}
