import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { runReported } from './background-activity';
import { probeSharing, sharingResourceAttributes } from './sharing-probe';
import { hostTelemetry } from './telemetry';

const USAGE = `tailscope-collectors <command>

  probe [--samples N] [--interval-ms MS] [--host-name NAME] [--otlp URL] [--service-name NAME]
      Measures timer oversleeps on this host (Bobtail), prints the verdict as JSON, and with
      --otlp sends it as a span whose resource carries host.sharing_mode.

  wrap --activity KIND [--host-name NAME] [--otlp URL] [--service-name NAME] -- COMMAND [ARGS...]
      Runs COMMAND and reports its run as a background.activity=KIND span for this host;
      exits with COMMAND's exit code.
`;

function positiveInt(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`${name} must be a positive integer, got ${raw}`);
  return n;
}

async function probe(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      samples: { type: 'string' },
      'interval-ms': { type: 'string' },
      'host-name': { type: 'string' },
      otlp: { type: 'string' },
      'service-name': { type: 'string' },
    },
  });
  const verdict = await probeSharing({
    samples: positiveInt('--samples', values.samples, 2000),
    intervalMs: positiveInt('--interval-ms', values['interval-ms'], 1),
  });
  const host = values['host-name'] ?? hostname();
  console.log(JSON.stringify({ host, ...verdict }, null, 2));
  if (values.otlp !== undefined) {
    const tel = hostTelemetry({
      otlp: values.otlp,
      serviceName: values['service-name'] ?? 'tailscope-probe',
      hostName: host,
      attributes: sharingResourceAttributes(verdict),
    });
    const end = Date.now();
    const span = tel.tracer.startSpan('sharing-probe', {
      startTime: end - verdict.samples * 1.1,
      attributes: {
        'host.sharing_mode': verdict.mode,
        'sharing_probe.samples': verdict.samples,
        'sharing_probe.p50_ms': verdict.p50Ms,
        'sharing_probe.p99_ms': verdict.p99Ms,
        'sharing_probe.p999_ms': verdict.p999Ms,
        'sharing_probe.max_ms': verdict.maxMs,
        'sharing_probe.long_count': verdict.longCount,
        'sharing_probe.noticeable_count': verdict.noticeableCount,
      },
    });
    span.end(end);
    await tel.shutdown();
  }
  return 0;
}

async function wrap(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      activity: { type: 'string' },
      'host-name': { type: 'string' },
      otlp: { type: 'string' },
      'service-name': { type: 'string' },
    },
  });
  const [command, ...args] = positionals;
  if (values.activity === undefined || values.activity === '') {
    throw new Error('wrap needs --activity KIND (e.g. cron, backup, compaction)');
  }
  if (command === undefined) throw new Error('wrap needs a command after --');
  const tel = hostTelemetry({
    otlp: values.otlp ?? process.env.OTEL_EXPORTER_OTLP_ENDPOINT ?? 'http://127.0.0.1:4318',
    serviceName: values['service-name'] ?? 'background',
    hostName: values['host-name'] ?? hostname(),
  });
  try {
    const res = await runReported([tel.tracer], { activity: values.activity, command, args });
    return res.exitCode ?? 1;
  } finally {
    await tel.shutdown();
  }
}

export async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (cmd === 'probe') return probe(rest);
  if (cmd === 'wrap') return wrap(rest);
  if (cmd === undefined || cmd === '--help' || cmd === '-h' || cmd === 'help') {
    process.stdout.write(USAGE);
    return cmd === undefined ? 2 : 0;
  }
  process.stderr.write(`unknown command ${JSON.stringify(cmd)}\n\n${USAGE}`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(
      `tailscope-collectors: ${err instanceof Error ? err.message : String(err)}\n`,
    );
    process.exitCode = 2;
  },
);
