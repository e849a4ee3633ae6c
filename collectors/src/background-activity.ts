import { spawn } from 'node:child_process';
import { PerformanceObserver, constants, type PerformanceEntry } from 'node:perf_hooks';
import { SpanKind, SpanStatusCode, type Attributes, type Tracer } from '@opentelemetry/api';

/**
 * Background-activity reporting: work that is not a request but slows the requests on its host
 * (garbage collection, compaction, backups, cron jobs) becomes a span with the attribute
 * `background.activity` = kind on that host's resource. Tailscope calls a leaf call that overlaps
 * such a span on the same host "during <kind>".
 *
 * Every function takes a list of tracers, one per host the activity stalls: processes that answer
 * as several virtual hosts share one event loop, so a pause in it is background activity on each.
 */

export const BACKGROUND_ACTIVITY = 'background.activity';

/** Records one finished activity as a span of its own trace on every given host. */
export function recordActivity(
  tracers: readonly Tracer[],
  activity: string,
  startEpochMs: number,
  endEpochMs: number,
  attributes: Attributes = {},
): void {
  for (const tracer of tracers) {
    const span = tracer.startSpan(activity, {
      kind: SpanKind.INTERNAL,
      root: true,
      startTime: startEpochMs,
      attributes: { [BACKGROUND_ACTIVITY]: activity, ...attributes },
    });
    span.end(endEpochMs);
  }
}

const GC_KINDS = new Map<number, string>([
  [constants.NODE_PERFORMANCE_GC_MINOR, 'minor'],
  [constants.NODE_PERFORMANCE_GC_MAJOR, 'major'],
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL, 'incremental'],
  [constants.NODE_PERFORMANCE_GC_WEAKCB, 'weakcb'],
]);

export interface GcReporterOptions {
  /**
   * Pauses shorter than this are not reported (default 2 ms): young-generation scavenges run
   * every few ms under allocation and are far below request latency; reporting each would flood
   * the store without explaining any straggler.
   */
  minDurationMs?: number;
}

export interface GcReporter {
  /** Pauses reported so far (above the minimum duration). */
  reported(): number;
  stop(): void;
}

/**
 * Turns this process's GC pauses (perf_hooks 'gc' entries) into `background.activity=gc` spans
 * with `gc.kind` (minor, major, incremental, weakcb). Entries arrive asynchronously after the
 * pause; the span keeps the pause's own start time and duration.
 */
export function reportGcPauses(
  tracers: readonly Tracer[],
  opts: GcReporterOptions = {},
): GcReporter {
  const minDurationMs = opts.minDurationMs ?? 2;
  let reported = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.duration < minDurationMs) continue;
      const start = performance.timeOrigin + entry.startTime;
      recordActivity(tracers, 'gc', start, start + entry.duration, {
        'gc.kind': gcKind(entry),
      });
      reported++;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    reported: () => reported,
    stop: () => {
      observer.disconnect();
    },
  };
}

function gcKind(entry: PerformanceEntry): string {
  const detail = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail;
  return GC_KINDS.get(detail?.kind ?? -1) ?? 'other';
}

export interface WrappedCommand {
  /** Activity kind, e.g. `cron`, `backup`, `compaction`. */
  activity: string;
  command: string;
  args: readonly string[];
  /** Extra span attributes. */
  attributes?: Attributes;
}

export interface WrappedResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  durationMs: number;
}

/**
 * Runs a command (stdio inherited) and reports its run as one `background.activity` span on
 * every given host. A command that fails to start rejects; one that exits non-zero resolves with
 * its exit code and an error status on the span.
 */
export async function runReported(
  tracers: readonly Tracer[],
  cmd: WrappedCommand,
): Promise<WrappedResult> {
  const start = Date.now();
  const child = spawn(cmd.command, cmd.args, { stdio: 'inherit' });
  const { exitCode, signal } = await new Promise<{
    exitCode: number | null;
    signal: NodeJS.Signals | null;
  }>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, sig) => {
      resolve({ exitCode: code, signal: sig });
    });
  });
  const end = Date.now();
  for (const tracer of tracers) {
    const span = tracer.startSpan(cmd.activity, {
      kind: SpanKind.INTERNAL,
      root: true,
      startTime: start,
      attributes: {
        [BACKGROUND_ACTIVITY]: cmd.activity,
        'process.command': cmd.command,
        'process.command_args': [cmd.command, ...cmd.args],
        ...(exitCode === null ? {} : { 'process.exit.code': exitCode }),
        ...cmd.attributes,
      },
    });
    if (exitCode !== 0) {
      span.setStatus({
        code: SpanStatusCode.ERROR,
        message: signal ? `killed by ${signal}` : `exit code ${String(exitCode)}`,
      });
    }
    span.end(end);
  }
  return { exitCode, signal, durationMs: end - start };
}
