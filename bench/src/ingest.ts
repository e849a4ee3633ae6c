/**
 * npm run bench:ingest [-- --seconds 20 --connections 4 --formats --collector PATH --collector-first]
 *
 * Starts the real `tailscope serve` on a temporary data directory, sends OTLP/HTTP protobuf
 * requests of 1,000 spans over keep-alive connections and prints, measured in the same run on the
 * same requests:
 *  - end to end: acknowledged spans/s (acknowledged = fsynced in the write-ahead log) and the
 *    rate at which those spans were all stored in the embedded engine;
 *  - with --collector PATH (or OTELCOL_BIN): the same requests over the same connections for the
 *    same time to an OpenTelemetry Collector that stores nothing, and Tailscope's ratio to it;
 *  - decode-only spans/s (protobuf -> Native columns, this process);
 *  - insert-only rows/s (Native batches into otel_traces, this process, its own engine);
 *  - with --formats: the engine's insert cost of the same rows as TSV, JSONEachRow, Native and
 *    RowBinary, and the protobuf reader walk (hand-rolled vs protobufjs Reader).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeTraceRequest, jsonToProtobuf, otlpFixtures } from '@tailscope/api';
import {
  collectorPhase,
  collectorUnavailable,
  findCollector,
  type CollectorResult,
} from './ingest-collector';
import { insertBench } from './ingest-insert';
import { cpuSeconds, drive, type LoadOptions } from './ingest-load';
import { formatsBench, readerBench } from './ingest-formats';
import { apiClient } from '@tailscope/contracts';
import { startServer } from './serve-child';

const argv = process.argv.slice(2);
function flag(name: string, fallback: number): number {
  const i = argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(argv[i + 1]) : NaN;
  return Number.isFinite(v) && v > 0 ? v : fallback;
}
const SECONDS = flag('seconds', 20);
const CONNECTIONS = flag('connections', 4);
const REQUESTS = flag('requests', 40);
const SPANS_PER_REQUEST = 1000;
const LOAD: LoadOptions = {
  connections: CONNECTIONS,
  seconds: SECONDS,
  spansPerRequest: SPANS_PER_REQUEST,
};

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

async function storedSpans(api: string): Promise<number> {
  return (await apiClient(fetch, api).call('stats', {})).spans;
}

interface EndToEnd {
  acked: number;
  sendS: number;
  storeS: number;
  refused: number;
  serverCpuS: number;
}

async function endToEnd(bodies: Buffer[]): Promise<EndToEnd> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tailscope-bench-ingest-'));
  const server = await startServer(dataDir);
  try {
    const cpu0 = cpuSeconds(server.child.pid);
    const t0 = performance.now();
    const { acked, refused, sendS } = await drive(`${server.otlp}/v1/traces`, bodies, LOAD);
    // Stored: wait until the engine holds every acknowledged span.
    while ((await storedSpans(server.api)) < acked) await new Promise((r) => setTimeout(r, 50));
    const t2 = performance.now();
    const serverCpuS = cpuSeconds(server.child.pid) - cpu0;
    return { acked, sendS, storeS: (t2 - t0) / 1000, refused, serverCpuS };
  } finally {
    server.child.kill('SIGTERM');
    await new Promise((r) => server.child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function decodeOnly(bodies: Buffer[], json = false): { perSecond: number; perCpuSecond: number } {
  let spans = 0;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  while (performance.now() - t0 < 3000) {
    for (const b of bodies) {
      const d = decodeTraceRequest(json ? jsonToProtobuf(b) : b);
      d.columns.tracesBlock();
      d.columns.typedBlock();
      d.columns.release();
      spans += d.accepted;
    }
  }
  const cpu = process.cpuUsage(cpu0);
  return {
    perSecond: spans / ((performance.now() - t0) / 1000),
    perCpuSecond: spans / ((cpu.user + cpu.system) / 1e6),
  };
}

const load = loadavg()
  .map((l) => l.toFixed(1))
  .join(' ');
console.log(
  `bench:ingest: ${REQUESTS} distinct requests of ${SPANS_PER_REQUEST} spans, ${CONNECTIONS} keep-alive connections, ${SECONDS} s; load average ${load}`,
);
const bodies = Array.from({ length: REQUESTS }, (_, i) =>
  otlpFixtures.protobufRequest(otlpFixtures.fanoutSpans(SPANS_PER_REQUEST, i + 1)),
);
console.log(`request size: ${fmt(bodies[0]?.length ?? 0)} bytes`);

// The Collector phase runs right after the Tailscope one (--collector-first: right before), so
// runs can alternate the order on a shared machine.
const collectorBin = findCollector(argv);
const collectorFirst = argv.includes('--collector-first');
let col: CollectorResult | undefined;
if (collectorBin !== undefined && collectorFirst) {
  col = await collectorPhase(collectorBin, bodies, LOAD);
}
const e2e = await endToEnd(bodies);
console.log(
  `end to end:  ${fmt(e2e.acked / e2e.sendS)} spans/s acknowledged (fsynced), ` +
    `${fmt(e2e.acked / e2e.storeS)} spans/s stored (${fmt(e2e.acked)} spans, all in otel_traces after ${e2e.storeS.toFixed(1)} s; ${e2e.refused} requests got 429)`,
);
console.log(
  `server CPU:  ${fmt(e2e.acked / e2e.serverCpuS)} spans per CPU-second (${e2e.serverCpuS.toFixed(1)} s of CPU, all threads: receive, decode, log, insert)`,
);
if (collectorBin === undefined) console.log(collectorUnavailable);
else {
  col ??= await collectorPhase(collectorBin, bodies, LOAD);
  const colRate = col.acked / col.sendS;
  const colPerCpu = col.acked / col.cpuS;
  console.log(
    `collector (nop): ${fmt(colRate)} spans/s accepted, ${fmt(colPerCpu)} per CPU-second ` +
      `(${col.version}; OTLP/HTTP -> batch -> nop, stores nothing; ${col.cpuS.toFixed(1)} s of CPU; ${col.refused} requests refused; ${collectorFirst ? 'before' : 'after'} the Tailscope phase)`,
  );
  console.log(
    `tailscope/collector = ${(e2e.acked / e2e.sendS / colRate).toFixed(2)}x (acknowledged, fsynced) ` +
      `and per CPU-second ${(e2e.acked / e2e.serverCpuS / colPerCpu).toFixed(2)}x`,
  );
}
const decode = decodeOnly(bodies);
console.log(
  `decode-only: ${fmt(decode.perSecond)} spans/s (protobuf -> Native columns, one thread; ${fmt(decode.perCpuSecond)} per CPU-second)`,
);
// OTLP/JSON as the JS SDK writes it (int64 as strings), and with int64 as bare JSON numbers
// (the slower path that keeps them exact).
const jsonBodies = Array.from({ length: 10 }, (_, i) =>
  otlpFixtures.jsonRequest(otlpFixtures.fanoutSpans(SPANS_PER_REQUEST, i + 1)),
);
const numberBodies = jsonBodies.map((b) =>
  Buffer.from(b.toString('utf8').replace(/("(?:start|end)?[tT]imeUnixNano":)"(\d+)"/g, '$1$2')),
);
for (const [label, set] of [
  ['strings', jsonBodies],
  ['numbers', numberBodies],
] as const) {
  const j = decodeOnly(set, true);
  console.log(
    `decode-only JSON (int64 as ${label}): ${fmt(j.perSecond)} spans/s (JSON -> protobuf -> Native columns; ${fmt(j.perCpuSecond)} per CPU-second)`,
  );
}
const ins = await insertBench(bodies);
console.log(
  `insert-only: ${fmt(ins.rowsPerSecond)} rows/s (Native via file(), batches of ${fmt(ins.batchRows)} rows, with the typed-attribute rows; ${fmt(ins.rowsPerCpuSecond)} per CPU-second)`,
);
if (argv.includes('--formats')) {
  for (const line of await formatsBench(ins.store)) console.log(line);
  for (const line of readerBench(bodies)) console.log(line);
}
await ins.close();
