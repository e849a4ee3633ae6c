// npm run bench:episodes — the `microservices` preset (seven services, a planted fault on the
// single-pod customer service) loaded into the embedded engine, then GET /api/v1/episodes over
// the whole range, in process (Fastify inject). Prints load time, wall time per request and what
// was found. Not a test. Issue #13 asks for under 1 s over 10 million spans on 2 cores.
//
// Two modes, both by default (MODE=live|stored|both): `live` recomputes the calls of the whole
// range per request (the store without tailscope_call_buckets); `stored` first builds the
// stored 10 s call buckets of every closed chunk (what the server's materializer does once, in
// the background; its time is printed), then reads them. Per request: wall time and the
// process CPU time (the embedded engine runs in process, so this is the server's CPU), and the
// 1-minute load average (the machine is shared). `stored` and `both` then time ranges ending
// "now" with the open chunk live, then stored per bucket (openRanges below); MODE=open runs only
// those.
//
// env: SPANS (default 10000000), RUNS (3), MODE, DATA_DIR (a temp dir, reused when it already
// holds the spans: FRESH=1 rebuilds it).
import { rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createGenerator, presetSpec } from '@tailscope/tracegen';
import {
  buildStoreApi,
  materializeCallBuckets,
  materializeOpenBuckets,
  migrate,
  openStore,
  selectStats,
  param,
  sql,
  type Store,
} from '@tailscope/api';
import { insertGenerated } from './generated-store';
import { endpointUrl, parseAnswer, type ErrorBody } from '@tailscope/contracts';

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
    await insertGenerated(store, gen, 'bench-episodes');
    console.log(`loaded in ${((performance.now() - t) / 1000).toFixed(0)} s`);
  }
  const spans = (await selectStats(store)).spans;
  console.log(
    `microservices: ${requests.toLocaleString()} requests, ${spans.toLocaleString()} spans, ` +
      `${((toMs - fromMs) / 60_000).toFixed(0)} min`,
  );
  const api = await buildStoreApi(store);
  const ask = async (label: string, from = fromMs, to = toMs): Promise<void> => {
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      const cpu = process.cpuUsage();
      const res = await api.inject({
        method: 'GET',
        url: endpointUrl('episodes', { query: { from, to } }),
      });
      const ms = performance.now() - t;
      const used = process.cpuUsage(cpu);
      const cpuMs = (used.user + used.system) / 1000;
      const ok = res.statusCode === 200;
      const body = ok ? parseAnswer('episodes', res.body) : undefined;
      const found = body
        ? body.episodes
            .map((e) => `${e.kind ?? ''} ${e.service}@${e.host} x${e.ratio.toFixed(1)}`)
            .join(', ')
        : (JSON.parse(res.body) as ErrorBody).error;
      console.log(
        `${label} run ${String(i + 1)}: ${String(res.statusCode)} in ${ms.toFixed(0)} ms, ` +
          `CPU ${cpuMs.toFixed(0)} ms, load ${(loadavg()[0] ?? 0).toFixed(1)}; ` +
          `${String(body?.windowSeconds ?? '-')} s windows, ${String(body?.windowsTested ?? '-')} tested; ` +
          found,
      );
    }
  };
  if (MODE === 'live' || MODE === 'both') {
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
    if (MODE !== 'open') await ask('stored');
  }
  if (MODE !== 'live') await openRanges(store, fromMs + gen.truth.durationMs, ask);
  await api.close();
  await store.close();
}

const CHUNK_MS = 600_000;
const nsOf = (ms: number): bigint => BigInt(ms) * 1_000_000n;
const cpuSince = (cpu: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / 1000;
};

/**
 * Ranges ending "now", as the dashboard asks them: the server's clock is set 10 s before the end
 * of the last whole chunk of the data, so the open chunk holds 9 min 50 s of spans (the worst
 * case for computing it live). The open chunk's whole-chunk copy is dropped (the bench's store
 * may hold it from an earlier run), then: the last 15 min and the last hour with the open
 * chunk live; one materializer pass storing its settled buckets (once: the whole chunk) and a
 * steady pass 15 s later (the new buckets only); the same ranges again.
 */
async function openRanges(
  store: Store,
  dataEndMs: number,
  ask: (label: string, from: number, to: number) => Promise<void>,
): Promise<void> {
  const nowMs = Math.floor(dataEndMs / CHUNK_MS) * CHUNK_MS - 10_000;
  const openChunk = param(Math.floor(nowMs / CHUNK_MS), 'Int64');
  await store.command(sql`DELETE FROM tailscope_call_bucket_chunks WHERE chunk >= ${openChunk}`);
  await store.command(sql`DELETE FROM tailscope_call_buckets WHERE chunk >= ${openChunk}`);
  await store.command(sql`TRUNCATE TABLE tailscope_call_bucket_open`);
  const ranges: [string, number][] = [
    ['last 15 min', 15 * 60_000],
    ['last hour', 3_600_000],
  ];
  for (const [name, ms] of ranges) await ask(`open chunk live, ${name}`, nowMs - ms, nowMs);
  for (const [pass, at] of [
    ['first', nowMs - 15_000],
    ['steady', nowMs],
  ] as const) {
    const t = performance.now();
    const cpu = process.cpuUsage();
    const built = await materializeOpenBuckets(store, { nowNs: nsOf(at) });
    console.log(
      `open buckets, ${pass} pass: built ${String(built.chunks)} buckets in ` +
        `${(performance.now() - t).toFixed(0)} ms, CPU ${cpuSince(cpu).toFixed(0)} ms`,
    );
  }
  for (const [name, ms] of ranges) await ask(`open buckets stored, ${name}`, nowMs - ms, nowMs);
}

await main();
