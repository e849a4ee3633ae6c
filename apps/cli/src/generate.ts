import { readFile, writeFile } from 'node:fs/promises';
import { Option, type Command } from 'commander';
import { Presets, SingleBar } from 'cli-progress';
import {
  createGenerator,
  describePresets,
  postOtlp,
  presetSpec,
  TracegenError,
  truthJson,
  validateSpec,
  writeOtlpFiles,
  type OtlpFormat,
  type Progress,
  type ScenarioSpec,
  type Shape,
} from '@tailscope/tracegen';
import { extraCommands } from './index';

export interface GenerateFlags {
  scenario?: string;
  /** The same as --scenario (issue #12 names presets so). */
  preset?: string;
  spec?: string;
  requests?: string;
  seed: string;
  start: string;
  width?: string;
  hosts?: string;
  rate?: string;
  shape?: Shape;
  correlated?: boolean;
  otlp?: string;
  out?: string;
  format: OtlpFormat;
  gzip?: boolean;
  batchSpans: string;
  concurrency: string;
  truth?: string;
}

function positiveInt(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new TracegenError(`${flag} must be a positive integer, got '${raw}'`);
  return n;
}

function positiveNumber(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0)
    throw new TracegenError(`${flag} must be a positive number, got '${raw}'`);
  return n;
}

async function loadSpec(flags: GenerateFlags): Promise<ScenarioSpec> {
  const width = positiveInt('--width', flags.width);
  const hosts = positiveInt('--hosts', flags.hosts);
  const ratePerSecond = positiveNumber('--rate', flags.rate);
  const correlation = flags.correlated ? ('request' as const) : undefined;
  if (flags.preset !== undefined && flags.scenario !== undefined && flags.preset !== flags.scenario)
    throw new TracegenError('give either --scenario or --preset, not both');
  const scenario = flags.scenario ?? flags.preset;
  if (scenario !== undefined && flags.spec !== undefined)
    throw new TracegenError('give either --scenario or --spec, not both');
  if (flags.spec !== undefined) {
    let json: unknown;
    try {
      json = JSON.parse(await readFile(flags.spec, 'utf8'));
    } catch (err) {
      throw new TracegenError(`--spec ${flags.spec}: ${err instanceof Error ? err.message : ''}`);
    }
    const spec = validateSpec(json);
    return validateSpec({
      ...spec,
      ...(width !== undefined && { width: { kind: 'fixed', n: width } }),
      ...(hosts !== undefined && { leaf: { ...spec.leaf, shards: hosts } }),
      ...(ratePerSecond !== undefined && { ratePerSecond }),
      ...(flags.shape !== undefined && { shape: flags.shape }),
      ...(correlation && { correlation }),
    });
  }
  if (scenario === undefined)
    throw new TracegenError('--scenario NAME (or --spec FILE) is required; see --help');
  return presetSpec(scenario, {
    ...(width !== undefined && { width }),
    ...(hosts !== undefined && { hosts }),
    ...(ratePerSecond !== undefined && { ratePerSecond }),
    ...(flags.shape !== undefined && { shape: flags.shape }),
    ...(correlation && { correlation }),
  });
}

export interface GenerateIo {
  stdout: NodeJS.WriteStream;
  now: () => number;
}

/** The `generate` command's work, separate from commander so it can be called directly. */
export async function runGenerate(flags: GenerateFlags, io: GenerateIo): Promise<Progress> {
  if ((flags.otlp === undefined) === (flags.out === undefined))
    throw new TracegenError('give exactly one of --otlp URL and --out DIR');
  const spec = await loadSpec(flags);
  const gen = createGenerator(spec, {
    requests: positiveInt('--requests', flags.requests) ?? spec.defaultRequests,
    seed: flags.seed,
    start: flags.start,
    spansPerBatch: positiveInt('--batch-spans', flags.batchSpans) ?? 1000,
    now: io.now,
  });
  const bar = io.stdout.isTTY
    ? new SingleBar(
        { format: 'generate [{bar}] {percentage}% | {value}/{total} requests | {spans} spans' },
        Presets.shades_classic,
      )
    : null;
  bar?.start(gen.truth.requests, 0, { spans: 0 });
  const onBatch = (p: Progress) => bar?.update(p.requests, { spans: p.spans });
  const began = io.now();
  let result: Progress;
  try {
    result =
      flags.otlp !== undefined
        ? await postOtlp(gen, flags.otlp, {
            format: flags.format,
            gzip: flags.gzip === true,
            concurrency: positiveInt('--concurrency', flags.concurrency) ?? 2,
            onBatch,
            // From the environment, like `report`'s TAILSCOPE_API_TOKEN: never a flag.
            ...(process.env.TAILSCOPE_INGEST_TOKEN
              ? { token: process.env.TAILSCOPE_INGEST_TOKEN }
              : {}),
          })
        : await writeOtlpFiles(gen, flags.out ?? '', { format: flags.format, onBatch });
  } finally {
    bar?.stop();
  }
  if (flags.truth !== undefined) await writeFile(flags.truth, truthJson(gen));
  const seconds = Math.max(1e-3, (io.now() - began) / 1000);
  const causes = gen.truth.causes.map((c) => `${c.dimension}=${c.value}`).join(', ') || 'none';
  io.stdout.write(
    `generated ${result.spans} spans (${result.requests} requests, ${result.batches} batches, ` +
      `${(result.bytes / 1e6).toFixed(1)} MB ${flags.format}) in ${seconds.toFixed(1)} s ` +
      `-> ${flags.otlp ?? flags.out ?? ''}\n` +
      `scenario ${gen.truth.scenario}, seed ${gen.truth.seed}; planted causes: ${causes}\n`,
  );
  return result;
}

function scenarioHelp(): string {
  const rows = describePresets();
  const width = Math.max(...rows.map((r) => r.name.length));
  return [
    '',
    'Scenarios:',
    ...rows.map((r) => `  ${r.name.padEnd(width)}  ${r.summary}`),
    '',
    'Example: tailscope generate --scenario bobtail --requests 5000 --otlp http://127.0.0.1:4318/v1/traces',
  ].join('\n');
}

extraCommands.push((program: Command) => {
  program
    .command('generate')
    .description('generate seeded synthetic fan-out traces with planted causes, as OTLP')
    .option('--scenario <name>', 'a preset scenario (listed below)')
    .option('--preset <name>', 'the same as --scenario')
    .option('--spec <file>', 'a JSON ScenarioSpec instead of a preset (docs/tracegen.md)')
    .option('--requests <n>', "root requests (fan-outs) to generate (default: the scenario's)")
    .option('--seed <seed>', 'seed: an integer or any text', '1')
    .option(
      '--start <time>',
      'first request time: ISO 8601, epoch ms or now',
      '2025-01-01T00:00:00Z',
    )
    .option('--width <n>', 'fan-out width (paper-fanout: the number of servers N)')
    .option('--hosts <n>', 'leaf hosts (bigtable-multiget: shards, 3 replicas each)')
    .option('--rate <r>', 'root requests per second')
    .addOption(
      new Option('--shape <shape>', 'span shape').choices(['client-server', 'server-only']),
    )
    .option('--correlated', 'draw the slow component once per request, not once per call')
    .option(
      '--otlp <url>',
      'POST to this OTLP/HTTP endpoint, e.g. http://127.0.0.1:4318 (/v1/traces is added to a bare base URL)',
    )
    .option('--out <dir>', 'write batch files and truth.json into this directory')
    .addOption(
      new Option('--format <format>', 'OTLP encoding')
        .choices(['protobuf', 'json'])
        .default('protobuf'),
    )
    .option('--gzip', 'gzip request bodies (with --otlp)')
    .option('--batch-spans <n>', 'spans per request body (whole traces)', '1000')
    .option('--concurrency <n>', 'requests in flight (with --otlp)', '2')
    .option('--truth <file>', 'also write the planted truth as JSON to this file')
    .addHelpText('after', scenarioHelp())
    .showHelpAfterError('(tailscope generate --help lists the options and scenarios)')
    .action(async (flags: GenerateFlags, cmd: Command) => {
      try {
        await runGenerate(flags, { stdout: process.stdout, now: Date.now });
      } catch (err) {
        if (err instanceof TracegenError) cmd.error(`error: ${err.message}`, { exitCode: 2 });
        throw err;
      }
    });
});
