// npm run bench:episodes — the `microservices` preset (seven services, a planted fault on the
// single-pod customer service) loaded into the embedded engine, then GET /api/v1/episodes over
// the whole range, in process (Fastify inject). Prints load time, wall time per request and what
// was found. Not a test. Issue #13 asks for under 1 s over 10 million spans on 2 cores.
//
// Two modes, both by default (MODE=live|stored|both): `live` recomputes the calls of the whole
// range per request (the store without tailscope_call_buckets); `stored` first builds the
// stored 10 s call buckets of every closed chunk (what the server's materializer does once, in
// the background; its time is printed), then reads them. Per request: wall time and the
// process CPU time (the embedded engine runs in process, so this is the server's CPU).
//
// env: SPANS (default 10000000), RUNS (3), MODE, DATA_DIR (a temp dir, reused when it already
// holds the spans: FRESH=1 rebuilds it).
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createGenerator, encodeOtlpProtobuf, presetSpec } from '@tailscope/tracegen';
import {
  buildStoreApi,
  decodeTraceRequest,
  insertNative,
  materializeCallBuckets,
  migrate,
  openStore,
  selectStats,
  sql,
  TRACE_COLUMNS,
  TRACES_TABLE,
} from '@tailscope/api';

const SPANS = Number(process.env.SPANS ?? 10_000_000);
const RUNS = Number(process.env.RUNS ?? 3);
const MODE = process.env.MODE ?? 'both';
const DATA_DIR = resolve(
  process.env.DATA_DIR ?? join(tmpdir(), `tailscope-bench-episodes-${String(SPANS)}`),
);
const START = '2025-01-01T00:00:00Z';

async function main(): Promise<void> {
  const spec = presetSpec('microservices');
  const probe = createGenerator(spec, { requests: 1000, seed: 1, start: START });
  const requests = Math.floor((SPANS * 1000) / probe.expectedSpans);
  const gen = createGenerator(spec, { requests, seed: 1, start: START });
  const fromMs = gen.truth.start.epochMs;
  const toMs = fromMs + gen.truth.durationMs + 60_000;
  let store = openStore({ dataDir: DATA_DIR });
  await migrate(store);
  const have = (await selectStats(store)).spans;
  if (have < gen.expectedSpans * 0.99 || process.env.FRESH === '1') {
    await store.close();
    rmSync(DATA_DIR, { recursive: true, force: true });
    store = openStore({ dataDir: DATA_DIR });
    await migrate(store);
    const t = performance.now();
    let parts: Buffer[] = [];
    let pending = 0;
    let block = 0;
    const flush = async (): Promise<void> => {
      if (parts.length === 0) return;
      await insertNative(store, {
        table: TRACES_TABLE,
        columns: TRACE_COLUMNS.map(([name]) => name),
        parts,
        dedupToken: `bench-episodes-${String(block)}`,
        scratchPath: join(
          tmpdir(),
          `tailscope-bench-ep-${String(process.pid)}-${String(block++)}.native`,
        ),
      });
      parts = [];
      pending = 0;
    };
    for (const batch of gen.batches()) {
      const d = decodeTraceRequest(encodeOtlpProtobuf(batch));
      parts.push(...d.columns.tracesBlock());
      pending += d.accepted;
      if (pending >= 250_000) await flush();
    }
    await flush();
    await store.command(sql`OPTIMIZE TABLE otel_traces FINAL`);
    console.log(`loaded in ${((performance.now() - t) / 1000).toFixed(0)} s`);
  }
  const spans = (await selectStats(store)).spans;
  console.log(
    `microservices: ${requests.toLocaleString()} requests, ${spans.toLocaleString()} spans, ` +
      `${((toMs - fromMs) / 60_000).toFixed(0)} min`,
  );
  const api = await buildStoreApi(store);
  const ask = async (label: string): Promise<void> => {
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      const cpu = process.cpuUsage();
      const res = await api.inject({
        method: 'GET',
        url: `/api/v1/episodes?from=${String(fromMs)}&to=${String(toMs)}`,
      });
      const ms = performance.now() - t;
      const used = process.cpuUsage(cpu);
      const cpuMs = (used.user + used.system) / 1000;
      const body = res.json<{
        windowSeconds?: number;
        windowsTested?: number;
        episodes?: { service: string; host: string; kind?: string; ratio: number }[];
        error?: string;
      }>();
      const found = (body.episodes ?? [])
        .map((e) => `${e.kind ?? ''} ${e.service}@${e.host} x${e.ratio.toFixed(1)}`)
        .join(', ');
      console.log(
        `${label} run ${String(i + 1)}: ${String(res.statusCode)} in ${ms.toFixed(0)} ms, ` +
          `CPU ${cpuMs.toFixed(0)} ms; ` +
          `${String(body.windowSeconds ?? '-')} s windows, ${String(body.windowsTested ?? '-')} tested; ` +
          (body.error ?? found),
      );
    }
  };
  if (MODE !== 'stored') {
    store.accelerators.callBuckets = false;
    await ask('live');
    store.accelerators.callBuckets = true;
  }
  if (MODE !== 'live') {
    const t = performance.now();
    const cpu = process.cpuUsage();
    const ns = (ms: number): bigint => BigInt(ms) * 1_000_000n;
    const built = await materializeCallBuckets(store, {
      fromNs: ns(fromMs),
      toNs: ns(toMs),
      nowNs: ns(Date.now()),
    });
    const used = process.cpuUsage(cpu);
    console.log(
      `stored: built ${String(built.chunks)} chunks in ${(performance.now() - t).toFixed(0)} ms, ` +
        `CPU ${((used.user + used.system) / 1000).toFixed(0)} ms (once, in the background)`,
    );
    await ask('stored');
  }
  await api.close();
  await store.close();
}

await main();
