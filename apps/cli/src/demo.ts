import { Option, type Command } from 'commander';
import { mkdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import {
  DEFAULT_HEDGE,
  DEFAULT_PROBATION,
  LoadGenerator,
  measureProbeBaseline,
  startCluster,
  type Cluster,
} from '@tailscope/demo';
import { serve, type Running } from '@tailscope/api';
import {
  autoSize,
  clusterOptionsFromFlags,
  DemoFlagError,
  num,
  numOrAuto,
  statusLine,
  type DemoFlags,
} from './demo-flags';
import { warmUp } from './demo-warmup';
import { relaunchInOwnSession, stayReason, stopWithLauncher } from './own-session';
import { addServerOptions, extraCommands, settingsFromFlags } from './index';

/**
 * `tailscope demo`: the server (as `serve` starts it) plus a real fan-out cluster sending it
 * traces under steady load. With --duration it stops everything and exits 0; without, Ctrl-C.
 */

interface DemoParts {
  running: Running | null;
  cluster: Cluster | null;
  load: LoadGenerator | null;
}

/** Stops, once, in order: the load (waits for answers in flight), the cluster, the server. */
function stopper(parts: DemoParts): (why: string) => Promise<void> {
  let stopping: Promise<void> | null = null;
  return (why) => {
    stopping ??= (async () => {
      console.log(`demo: ${why}, stopping the load, the cluster and the server`);
      await parts.load?.stop();
      await parts.cluster?.stop();
      await parts.running?.close();
    })();
    return stopping;
  };
}

function exitOnSignals(stop: (why: string) => Promise<void>): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      stop(signal).then(
        () => process.exit(0),
        (err: unknown) => {
          console.error(err);
          process.exit(1);
        },
      );
    });
  }
}

/** A status line every `everyS` seconds, over the answers since the previous one. */
function printStatus(
  cluster: Cluster,
  load: LoadGenerator,
  running: Running | null,
  everyS: number,
) {
  const started = performance.now();
  let last = started;
  // Counted from the start of recording: the warm-up's failures are not the recording's.
  const base = load.snapshot();
  return setInterval(() => {
    const now = performance.now();
    const spansPerSecond = running ? running.ingest.spansPerSecond() : null;
    const snap = load.snapshot();
    console.log(
      statusLine(
        (now - started) / 1000,
        (now - last) / 1000,
        { ...snap, failed: snap.failed - base.failed, dropped: snap.dropped - base.dropped },
        cluster.stats(),
        spansPerSecond,
      ),
    );
    last = now;
  }, everyS * 1000);
}

async function runDemo(flags: DemoFlags): Promise<void> {
  const durationS =
    flags.duration === undefined ? null : num('--duration', flags.duration, 1, 7 * 86_400);
  const sized = autoSize(availableParallelism());
  const rate = numOrAuto('--rate', flags.rate, sized.rate, 0.1, 2000);
  const statusEveryS = num('--status-every-s', flags.statusEveryS, 1, 3600);
  const warmupMaxS = num('--warmup-max-s', flags.warmupMaxS, 0, 3600);
  if (flags.otlp !== undefined && !/^https?:\/\/[^/]+/.test(flags.otlp)) {
    throw new DemoFlagError(
      `--otlp must be an http(s) URL such as http://127.0.0.1:4318/v1/traces, got '${flags.otlp}'`,
    );
  }
  // Validate everything before starting anything.
  clusterOptionsFromFlags(flags, flags.otlp ?? 'http://127.0.0.1:4318/v1/traces');
  // The server yields to the cluster only from a session of its own (own-session.ts).
  if (stayReason(process.env, { serves: flags.otlp === undefined }) === null)
    process.exit(await relaunchInOwnSession());

  // The probe's calm baseline, before anything of the demo loads the machine.
  const probeBaseline = flags.probe && warmupMaxS > 0 ? await measureProbeBaseline() : null;
  const parts: DemoParts = { running: null, cluster: null, load: null };
  if (flags.otlp === undefined) {
    const settings = settingsFromFlags(flags);
    // The terminal is for status lines; request logs go to a file in the data directory.
    mkdirSync(settings.dataDir, { recursive: true });
    const requestLogFile = join(settings.dataDir, 'requests.log');
    parts.running = await serve(settings, { log: true, requestLogFile });
    console.log(`tailscope: request log ${requestLogFile}`);
  }
  const otlpUrl = flags.otlp ?? `${parts.running?.urls.otlpHttp ?? ''}/v1/traces`;
  // With TAILSCOPE_INGEST_TOKENS the cluster's exporters (child processes) need one: the OTel
  // SDK reads this variable, and the children inherit it.
  const ingestToken = parts.running?.settings.ingestTokens[0];
  if (ingestToken !== undefined && process.env.OTEL_EXPORTER_OTLP_TRACES_HEADERS === undefined)
    process.env.OTEL_EXPORTER_OTLP_TRACES_HEADERS = `Authorization=Bearer ${ingestToken}`;
  const stop = stopper(parts);
  exitOnSignals(stop);
  stopWithLauncher(stop);
  let cluster: Cluster;
  let load: LoadGenerator;
  try {
    console.log('demo: starting the cluster (hogs, leaves, root)');
    cluster = await startCluster({
      ...clusterOptionsFromFlags(flags, otlpUrl),
      warmup: warmupMaxS > 0,
      probeBaseline,
      log: (line) => {
        console.log(`demo: ${line}`);
      },
    });
    parts.cluster = cluster;
    console.log(
      `demo: ${String(cluster.hosts.length)} hosts, width ${flags.width}, policy ${flags.policy}, ${String(rate)} fan-outs/s to ${cluster.rootUrl}/fanout (${String(cluster.plan.hogs.length)} hog(s), ${String(availableParallelism())} cores)`,
    );
    load = new LoadGenerator(cluster.rootUrl, rate);
    parts.load = load;
    load.start();
    if (warmupMaxS > 0) {
      // Nothing is recorded until the latency has settled and the probes have ruled.
      const w = await warmUp(cluster, load, {
        maxS: warmupMaxS,
        log: (line) => {
          console.log(`demo: ${line}`);
        },
      });
      console.log(
        w.settled
          ? `demo: warmed up in ${w.seconds.toFixed(0)} s (p99 ${w.p99Ms.toFixed(1)} ms); recording from now`
          : `demo: latency did not settle in ${w.seconds.toFixed(0)} s (--warmup-max-s); recording from now anyway`,
      );
    }
  } catch (err) {
    await stop('startup failed');
    throw err;
  }
  const before = cluster.stats();
  const ticker = printStatus(cluster, load, parts.running, statusEveryS);
  if (durationS === null) return; // until Ctrl-C / SIGTERM
  await new Promise((resolve) => setTimeout(resolve, durationS * 1000));
  clearInterval(ticker);
  await stop(`${String(durationS)} s done`);
  const s = cluster.stats();
  const recorded = (s?.fanouts ?? 0) - (before?.fanouts ?? 0);
  const failed = (s?.fanoutErrors ?? 0) - (before?.fanoutErrors ?? 0);
  console.log(
    `demo: done. ${String(recorded)} fan-outs recorded, ${String(failed)} failed` +
      (parts.running ? `; the spans are in ${parts.running.settings.dataDir}` : ''),
  );
  // Everything is stopped and flushed; do not wait on whatever handle a library left open.
  process.exit(0);
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
    .option(
      '--rate <rps>',
      'fan-out requests per second (open loop); auto: 15 on 2 cores, 25 above',
      'auto',
    )
    .option('--width <n>', 'fan-out width: shards called per request', '8')
    .option('--leaf-processes <n>', 'leaf OS processes', '5')
    .option('--hosts-per-process <n>', 'virtual hosts (host.name) per leaf process', '8')
    .option(
      '--hogs <n>',
      'CPU hog processes on the contended core; auto: 1 on 2 cores, 2 above',
      'auto',
    )
    .option('--contended-nice <n>', 'niceness of the leaf sharing the core with the hogs', '10')
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
      '--hedge-cancel <how>',
      'hedge: the losing copy is left to finish (discard) or aborted, closing its connection (close)',
      'discard',
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
      '--control-fraction <f>',
      'share of fan-outs served without the policy, marked tailscope.arm=control (an A/B in one run)',
      '0',
    )
    .option(
      '--slow-host <host>',
      'make this host slow for a while (an injected fault, e.g. host-07)',
    )
    .option('--slow-from <s>', 'seconds after the load starts', '30')
    .option('--slow-for <s>', 'how long the host stays slow', '30')
    .option('--slow-ms <ms>', 'mean extra wait per request on the slow host', '40')
    .option('--compaction-every-ms <ms>', 'mean period of the compaction leaf', '2500')
    .option('--status-every-s <s>', 'print a status line this often', '5')
    .option(
      '--metrics-every-s <s>',
      "export the root's and leaves' runtime metrics (CPU of their cores, V8 GC, event loop) this often; 0: none",
      '10',
    )
    .option(
      '--warmup-max-s <s>',
      'warm up (nothing recorded) until latency settles and the probes rule, at most this long; 0: record from the start',
      '60',
    )
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
