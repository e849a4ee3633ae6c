import { Option, type Command } from 'commander';
import {
  DEFAULT_HEDGE,
  DEFAULT_PROBATION,
  LoadGenerator,
  planCluster,
  startCluster,
  type Cluster,
  type ClusterOptions,
  type LoadSnapshot,
  type Policy,
  type RootStats,
} from '@tailscope/demo';
import { serve, type Running } from '../server/serve';
import { addServerOptions, extraCommands, settingsFromFlags, type ServerFlags } from './index';

/**
 * `tailscope demo`: the server (as `serve` starts it) plus a real fan-out cluster sending it
 * traces under steady load. With --duration it stops everything and exits 0; without, Ctrl-C.
 */

export interface DemoFlags extends ServerFlags {
  duration?: string;
  policy: Policy;
  rate: string;
  width: string;
  leafProcesses: string;
  hostsPerProcess: string;
  hogs: string;
  contendedNice: string;
  probe: boolean;
  hedgeDelayMs: string;
  hedgePercentile?: string;
  probationWindowS: string;
  probationFactor: string;
  probationMinMs: string;
  probationHoldS: string;
  probationShadow: string;
  slowHost?: string;
  slowFrom: string;
  slowFor: string;
  slowMs: string;
  compactionEveryMs: string;
  statusEveryS: string;
  otlp?: string;
}

export class DemoFlagError extends Error {}

function num(flag: string, raw: string, min: number, max: number, integer = false): number {
  const n = Number(raw);
  if (
    raw.trim() === '' ||
    !Number.isFinite(n) ||
    n < min ||
    n > max ||
    (integer && !Number.isInteger(n))
  ) {
    const kind = integer ? 'an integer' : 'a number';
    throw new DemoFlagError(
      `${flag} must be ${kind} between ${String(min)} and ${String(max)}, got '${raw}'`,
    );
  }
  return n;
}

/** Flags to cluster options, with an error naming the bad flag. */
export function clusterOptionsFromFlags(f: DemoFlags, otlpUrl: string): ClusterOptions {
  const hedgePercentile =
    f.hedgePercentile === undefined ? null : num('--hedge-percentile', f.hedgePercentile, 1, 99.99);
  const options: ClusterOptions = {
    otlpUrl,
    policy: f.policy,
    width: num('--width', f.width, 2, 64, true),
    leafProcesses: num('--leaf-processes', f.leafProcesses, 1, 32, true),
    hostsPerProcess: num('--hosts-per-process', f.hostsPerProcess, 1, 64, true),
    hogs: num('--hogs', f.hogs, 0, 8, true),
    contendedNice: num('--contended-nice', f.contendedNice, 0, 19, true),
    probe: f.probe,
    compactionEveryMs: num('--compaction-every-ms', f.compactionEveryMs, 100, 3_600_000),
    hedge: {
      delayMs: num('--hedge-delay-ms', f.hedgeDelayMs, 0.1, 60_000),
      percentile: hedgePercentile,
    },
    probation: {
      windowMs: num('--probation-window-s', f.probationWindowS, 0.5, 3600) * 1000,
      factor: num('--probation-factor', f.probationFactor, 1, 1000),
      minLatencyMs: num('--probation-min-ms', f.probationMinMs, 0, 60_000),
      holdMs: num('--probation-hold-s', f.probationHoldS, 0, 3600) * 1000,
      shadowFraction: num('--probation-shadow', f.probationShadow, 0, 1),
    },
    slow:
      f.slowHost === undefined
        ? null
        : {
            host: f.slowHost,
            fromS: num('--slow-from', f.slowFrom, 0, 86_400),
            forS: num('--slow-for', f.slowFor, 0, 86_400),
            delayMs: num('--slow-ms', f.slowMs, 0, 60_000),
          },
  };
  // The cluster's shape checks (enough replicas per shard, a known slow host), before any start.
  let hosts: string[];
  try {
    hosts = planCluster({
      leafProcesses: options.leafProcesses ?? 5,
      hostsPerProcess: options.hostsPerProcess ?? 8,
      width: options.width ?? 8,
      hogs: options.hogs ?? 1,
      contendedNice: options.contendedNice ?? 5,
      cpus: 2,
      canPin: false,
      canRaisePriority: false,
    }).hosts.map((h) => h.host);
  } catch (err) {
    throw new DemoFlagError(err instanceof Error ? err.message : String(err));
  }
  if (f.slowHost !== undefined && !hosts.includes(f.slowHost)) {
    throw new DemoFlagError(
      `--slow-host must name a host of the cluster (${hosts[0] ?? ''} to ${hosts.at(-1) ?? ''}), got '${f.slowHost}'`,
    );
  }
  return options;
}

function ms(x: number): string {
  return Number.isNaN(x) ? '-' : `${x.toFixed(1)} ms`;
}

/** One status line: load as the client saw it, the root's policy counters, the ingest rate. */
export function statusLine(
  elapsedS: number,
  periodS: number,
  load: LoadSnapshot,
  root: RootStats | null,
  spansPerSecond: number | null,
): string {
  const parts = [
    `demo ${String(Math.round(elapsedS)).padStart(4)}s`,
    `${(load.answers / periodS).toFixed(1)} fan-outs/s`,
    `p50 ${ms(load.p50Ms)}`,
    `p99 ${ms(load.p99Ms)}`,
    `max ${ms(load.maxMs)}`,
    `failed ${String(load.failed)}`,
  ];
  if (load.dropped > 0) parts.push(`dropped ${String(load.dropped)}`);
  if (root?.hedgeDelayMs != null) {
    parts.push(
      `hedges ${String(root.hedgesSent)} (won ${String(root.hedgesWon)}, delay ${String(root.hedgeDelayMs)} ms)`,
    );
  }
  if (root && (root.exclusions > 0 || root.shadowsSent > 0)) {
    const now = root.excluded.length === 0 ? 'none' : root.excluded.join(',');
    parts.push(
      `probation: ${now} (${String(root.exclusions)} so far, ${String(root.shadowsSent)} shadows)`,
    );
  }
  if (spansPerSecond !== null) parts.push(`ingest ${spansPerSecond.toFixed(0)} spans/s`);
  return parts.join('  ');
}

async function runDemo(flags: DemoFlags): Promise<void> {
  const durationS =
    flags.duration === undefined ? null : num('--duration', flags.duration, 1, 7 * 86_400);
  const rate = num('--rate', flags.rate, 0.1, 2000);
  const statusEveryS = num('--status-every-s', flags.statusEveryS, 1, 3600);
  // Validate everything before starting anything.
  clusterOptionsFromFlags(flags, 'http://127.0.0.1:4318/v1/traces');

  let running: Running | null = null;
  let otlpUrl = flags.otlp;
  if (otlpUrl === undefined) {
    running = await serve(settingsFromFlags(flags), { log: true });
    otlpUrl = `${running.urls.otlpHttp}/v1/traces`;
  }
  let cluster: Cluster | null = null;
  let load: LoadGenerator | null = null;
  let stopping: Promise<void> | null = null;
  const stop = (why: string) => {
    stopping ??= (async () => {
      console.log(`demo: ${why}, stopping the load, the cluster and the server`);
      await load?.stop();
      await cluster?.stop();
      await running?.close();
    })();
    return stopping;
  };
  const onSignal = (signal: string) => {
    stop(signal).then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(err);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => {
    onSignal('SIGINT');
  });
  process.once('SIGTERM', () => {
    onSignal('SIGTERM');
  });

  try {
    console.log('demo: starting the cluster (hogs, leaves, root)');
    cluster = await startCluster({
      ...clusterOptionsFromFlags(flags, otlpUrl),
      log: (line) => {
        console.log(`demo: ${line}`);
      },
    });
    console.log(
      `demo: ${String(cluster.hosts.length)} hosts, width ${flags.width}, policy ${flags.policy}, ${String(rate)} fan-outs/s to ${cluster.rootUrl}/fanout`,
    );
    load = new LoadGenerator(cluster.rootUrl, rate);
    load.start();
  } catch (err) {
    await stop('startup failed');
    throw err;
  }

  const activeLoad = load;
  const activeCluster = cluster;
  const started = performance.now();
  let last = started;
  const ticker = setInterval(() => {
    const now = performance.now();
    const line = statusLine(
      (now - started) / 1000,
      (now - last) / 1000,
      activeLoad.snapshot(),
      activeCluster.stats(),
      running ? running.ingest.spansPerSecond() : null,
    );
    last = now;
    console.log(line);
  }, statusEveryS * 1000);

  if (durationS !== null) {
    await new Promise((resolve) => setTimeout(resolve, durationS * 1000));
    clearInterval(ticker);
    await stop(`${String(durationS)} s done`);
    const s = activeCluster.stats();
    console.log(
      `demo: done. ${String(s?.fanouts ?? 0)} fan-outs, ${String(s?.fanoutErrors ?? 0)} failed` +
        (running ? `; the spans are in ${running.settings.dataDir}` : ''),
    );
    // Everything is stopped and flushed; do not wait on whatever handle a library left open.
    process.exit(0);
  }
}

extraCommands.push((program: Command) => {
  const cmd = program
    .command('demo')
    .description(
      'start the server and a real fan-out cluster (CPU co-tenancy, GC, compaction) under steady load',
    )
    .option(
      '--duration <s>',
      'stop everything after this many seconds and exit 0 (default: run until Ctrl-C)',
    )
    .addOption(
      new Option('--policy <policy>', 'tail-tolerance policy the root runs for real')
        .choices(['none', 'hedge', 'probation'])
        .default('none'),
    )
    .option('--rate <rps>', 'fan-out requests per second (open loop)', '25')
    .option('--width <n>', 'fan-out width: shards called per request', '8')
    .option('--leaf-processes <n>', 'leaf OS processes', '5')
    .option('--hosts-per-process <n>', 'virtual hosts (host.name) per leaf process', '8')
    .option('--hogs <n>', 'CPU hog processes on the contended core', '1')
    .option('--contended-nice <n>', 'niceness of the leaf sharing the core with the hogs', '5')
    .option('--no-probe', "use each leaf role's sharing mode instead of measuring it")
    .option(
      '--hedge-delay-ms <ms>',
      'hedge: send the backup after this long',
      String(DEFAULT_HEDGE.delayMs),
    )
    .option(
      '--hedge-percentile <p>',
      'hedge: delay = this percentile of recent call latency instead',
    )
    .option(
      '--probation-window-s <s>',
      'probation: per-host latency window',
      String(DEFAULT_PROBATION.windowMs / 1000),
    )
    .option(
      '--probation-factor <x>',
      "probation: exclude a host whose window p90 exceeds x times the median host's",
      String(DEFAULT_PROBATION.factor),
    )
    .option(
      '--probation-min-ms <ms>',
      'probation: never exclude below this p90',
      String(DEFAULT_PROBATION.minLatencyMs),
    )
    .option(
      '--probation-hold-s <s>',
      'probation: healthy this long (by shadow requests) before returning',
      String(DEFAULT_PROBATION.holdMs / 1000),
    )
    .option(
      '--probation-shadow <f>',
      'probation: share of rerouted calls also sent to the excluded host as shadows',
      String(DEFAULT_PROBATION.shadowFraction),
    )
    .option(
      '--slow-host <host>',
      'make this host slow for a while (an injected fault, e.g. host-07)',
    )
    .option('--slow-from <s>', 'seconds after the load starts', '30')
    .option('--slow-for <s>', 'how long the host stays slow', '30')
    .option('--slow-ms <ms>', 'mean extra wait per request on the slow host', '40')
    .option('--compaction-every-ms <ms>', 'mean period of the compaction leaf', '5000')
    .option('--status-every-s <s>', 'print a status line this often', '5')
    .option('--otlp <url>', 'send traces to this OTLP/HTTP endpoint and start no server')
    .showHelpAfterError('(tailscope demo --help lists the options)');
  addServerOptions(cmd).action(async (flags: DemoFlags, command: Command) => {
    try {
      await runDemo(flags);
    } catch (err) {
      if (err instanceof DemoFlagError) command.error(`error: ${err.message}`, { exitCode: 2 });
      throw err;
    }
  });
});
