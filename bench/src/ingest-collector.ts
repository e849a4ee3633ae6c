/**
 * bench:ingest's comparison phase: a real OpenTelemetry Collector (OTLP/HTTP receiver -> batch
 * processor -> nop exporter: it stores nothing) on a free loopback port, sent the same load as
 * the Tailscope end-to-end phase. The binary is given with `--collector PATH` or `OTELCOL_BIN`;
 * collectors/otelcol/build is a small distribution built from the released Collector modules
 * (it also has what CI's host-metrics test needs).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuSeconds, drive, type LoadOptions, type LoadResult } from './ingest-load';

export const collectorUnavailable =
  'collector:   skipped (no --collector PATH or OTELCOL_BIN). To build one from the released Collector modules\n' +
  '             (Go >= 1.26 and the Go module proxy): npm run otelcol:build --workspace bench, then\n' +
  '             npm run bench:ingest -- --collector /tmp/tailscope-otelcol. Any Collector with the otlp receiver,\n' +
  '             batch processor and nop exporter will do (e.g. the core distribution, otelcorecol).';

/** The Collector binary from `--collector PATH` or the OTELCOL_BIN environment variable. */
export function findCollector(argv: string[]): string | undefined {
  const i = argv.indexOf('--collector');
  const path = i >= 0 ? argv[i + 1] : process.env.OTELCOL_BIN;
  return path === undefined || path === '' ? undefined : path;
}

export interface CollectorResult extends LoadResult {
  /** The binary's `--version` line. */
  version: string;
  /** CPU seconds of the Collector process (all threads) over the load and the last batch. */
  cpuS: number;
}

function freePort(): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => {
        resolvePromise(port);
      });
    });
  });
}

/** OTLP/HTTP on loopback only -> batch (defaults) -> nop; no telemetry listener of its own. */
function config(port: number): string {
  return [
    'receivers:',
    '  otlp:',
    '    protocols:',
    '      http:',
    `        endpoint: 127.0.0.1:${String(port)}`,
    'processors:',
    '  batch: {}',
    'exporters:',
    '  nop: {}',
    'service:',
    '  telemetry:',
    '    logs:',
    '      level: warn',
    '    metrics:',
    '      level: none',
    '  pipelines:',
    '    traces:',
    '      receivers: [otlp]',
    '      processors: [batch]',
    '      exporters: [nop]',
    '',
  ].join('\n');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function collectorPhase(
  bin: string,
  bodies: Buffer[],
  load: LoadOptions,
): Promise<CollectorResult> {
  const versionRun = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 10_000 });
  if (versionRun.error)
    throw new Error(`cannot run the Collector ${bin}: ${versionRun.error.message}`);
  const version = versionRun.stdout.trim();
  const dir = mkdtempSync(join(tmpdir(), 'tailscope-bench-otelcol-'));
  const port = await freePort();
  const configPath = join(dir, 'config.yaml');
  writeFileSync(configPath, config(port));
  const child = spawn(bin, ['--config', configPath], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  let exited: number | null | undefined;
  const exit = new Promise<void>((r) =>
    child.once('exit', (code) => {
      exited = code;
      r();
    }),
  );
  const url = `http://127.0.0.1:${String(port)}/v1/traces`;
  try {
    // Ready when an empty export request is accepted.
    const ready = performance.now() + 30_000;
    for (;;) {
      if (exited !== undefined)
        throw new Error(`Collector exited with ${String(exited)}: ${stderr}`);
      if (performance.now() > ready) throw new Error(`Collector did not start: ${stderr}`);
      const ok = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-protobuf' },
        body: new Uint8Array(0),
      }).then(
        (res) => res.ok,
        () => false,
      );
      if (ok) break;
      await sleep(100);
    }
    const cpu0 = cpuSeconds(child.pid);
    const result = await drive(url, bodies, load);
    await sleep(300); // the batch processor's 200 ms timer hands the last batch to nop
    const cpuS = cpuSeconds(child.pid) - cpu0;
    return { ...result, version, cpuS };
  } finally {
    if (exited === undefined) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exit;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  }
}
