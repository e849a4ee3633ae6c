import { Option, type Command } from 'commander';
import { SingleBar, Presets } from 'cli-progress';
import { extraCommands } from './index';
import { formatFromName, parseTime, runReport, type ReportFormat } from '@tailscope/api';

interface ReportFlags {
  url?: string;
  dataDir: string;
  clickhouseUrl?: string;
  from?: string;
  to?: string;
  leafService?: string;
  leafOperation?: string;
  format?: ReportFormat;
  out?: string;
  maxOperations: string;
  seed: string;
  sloMs?: string;
}

/** A duration in ms: a number > 0 and at most a year (the API's bound on sloMs). */
function positiveMs(name: string, raw: string): number {
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0 || n > 366 * 86_400_000)
    throw new Error(`${name} must be a number of ms > 0, got '${raw}'`);
  return n;
}

function positiveInt(name: string, raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`${name} must be a positive integer, got ${JSON.stringify(raw)}`);
  return n;
}

extraCommands.push((program: Command) => {
  program
    .command('report')
    .description('export a fan-out tail report for capacity reviews (JSON, CSV, HTML or PDF)')
    .addOption(
      new Option(
        '--url <url>',
        'ask a running Tailscope (e.g. http://127.0.0.1:8080) instead of opening the store',
      ),
    )
    .addOption(
      new Option('--data-dir <dir>', 'embedded store directory')
        .env('TAILSCOPE_DATA_DIR')
        .default('./data'),
    )
    .addOption(
      new Option('--clickhouse-url <url>', 'ClickHouse server (unset: embedded engine)').env(
        'CLICKHOUSE_URL',
      ),
    )
    .option('--from <time>', 'start: epoch ms or ISO-8601 (default: the oldest span)')
    .option('--to <time>', 'end: epoch ms or ISO-8601 (default: the newest span)')
    .option('--leaf-service <name>', 'only fan-outs to this leaf service')
    .option('--leaf-operation <name>', 'only fan-outs to this leaf operation')
    .addOption(
      new Option('--format <format>', 'output format (default: from --out, else json)').choices([
        'json',
        'csv',
        'html',
        'pdf',
      ]),
    )
    .option('--out <file>', 'write to this file (default: stdout; pdf needs a file)')
    .option('--max-operations <n>', 'report at most this many operations, worst first', '10')
    .option('--seed <n>', 'seed of the what-if replays and bootstrap intervals', '1')
    .option(
      '--slo-ms <ms>',
      "root p99 objective of the capacity section, ms (default: each operation's p99 today)",
    )
    .action(async (flags: ReportFlags) => {
      const format = flags.format ?? formatFromName(flags.out);
      const bar = process.stderr.isTTY
        ? new SingleBar(
            { format: 'report [{bar}] {value}/{total} {label}', stream: process.stderr },
            Presets.shades_classic,
          )
        : undefined;
      let started = false;
      const { output, report } = await runReport({
        url: flags.url,
        // A server with TAILSCOPE_API_TOKENS: one of them, from the environment (not a flag,
        // so it stays out of shell history and `ps`).
        apiToken: process.env.TAILSCOPE_API_TOKEN || undefined,
        dataDir: flags.dataDir,
        clickhouseUrl: flags.clickhouseUrl,
        fromMs: flags.from === undefined ? undefined : parseTime('--from', flags.from),
        toMs: flags.to === undefined ? undefined : parseTime('--to', flags.to),
        leafService: flags.leafService,
        leafOperation: flags.leafOperation,
        format,
        out: flags.out,
        maxOperations: positiveInt('--max-operations', flags.maxOperations),
        seed: positiveInt('--seed', flags.seed),
        sloMs: flags.sloMs === undefined ? undefined : positiveMs('--slo-ms', flags.sloMs),
        version: '0.1.0',
        onProgress: (done, total, label) => {
          if (!bar) return;
          if (!started) {
            bar.start(total, done, { label });
            started = true;
          }
          bar.update(done, { label });
        },
      });
      bar?.stop();
      if (output !== undefined) process.stdout.write(output);
      else if (flags.out) {
        // Written to a file: the summary's ranked lines on the terminal, the rest in the file.
        for (const line of report.summary?.lines ?? []) console.error(line);
        console.error(`tailscope: wrote ${format} report to ${flags.out}`);
      }
    });
});
