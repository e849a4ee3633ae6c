// npm run bench:incidents — the `microservices` preset (its planted fault on the single-pod
// customer service) loaded into the embedded engine, its stored call buckets built (what the
// server's materializer does in the background), then GET /api/v1/episodes and
// GET /api/v1/incidents over the whole range, in process (Fastify inject), with the answer cache
// off so every run computes. Prints per request the wall time, the process CPU (the engine runs
// in process: the server's CPU), the load average (the machine is shared) and what was found.
// Not a test. Issue 28 asks for incidents over the last hour of 10M spans in under 1 s.
//
// env: SPANS (default 1000000), RUNS (3), RATE (requests/s of the preset, default its own: 20),
// LAST_MIN (ask for the last N minutes of the run, default the whole run), DATA_DIR (a temp
// dir, reused when it already holds the spans: FRESH=1 rebuilds it).
// SHARED=1 keeps the answer cache: each run asks /episodes, then /incidents over the same range
// (shifted 1 ms a run, so no run finds the last one's answers), as the Overview does; incidents
// then reuse the episodes' judgement and the figure is their own part.
// WARM=1 first asks /episodes and /incidents once over the whole run, not counted: a process
// that has answered once, as `tailscope serve` has after its warm pass asks the Overview's
// questions over "All data" (run 1 is otherwise also the process compiling its code).
// ANSWER_OUT=path writes the last incidents answer there and the last episodes answer beside it
// (path.episodes.json), to compare answers before and after a change.
const SHARED = process.env.SHARED === '1';
if (!SHARED) process.env.TAILSCOPE_ANSWER_CACHE_MB = '0';
import { rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createGenerator, presetSpec } from '@tailscope/tracegen';
import {
  buildStoreApi,
  materializeCallBuckets,
  migrate,
  openStore,
  selectStats,
  startTraceSpansBackfill,
} from '@tailscope/api';
import { insertGenerated } from './generated-store';
import { delayWindows, scoreFault } from './faults/score';
import { endpointUrl, parseAnswer, type ErrorBody } from '@tailscope/contracts';

const SPANS = Number(process.env.SPANS ?? 1_000_000);
const RUNS = Number(process.env.RUNS ?? 3);
const RATE = process.env.RATE ? Number(process.env.RATE) : undefined;
const LAST_MIN = process.env.LAST_MIN ? Number(process.env.LAST_MIN) : undefined;
const DATA_DIR = resolve(
  process.env.DATA_DIR ??
    join(tmpdir(), `tailscope-bench-incidents-${String(SPANS)}${RATE ? `-r${String(RATE)}` : ''}`),
);
const START = '2025-01-01T00:00:00Z';

/** One answer in a few words: the incidents and their causes, the episode count, or the error. */
function describeAnswer(route: 'episodes' | 'incidents', status: number, text: string): string {
  if (status !== 200) return (JSON.parse(text) as ErrorBody).error;
  if (route === 'episodes')
    return `${String(parseAnswer('episodes', text).episodes.length)} episodes`;
  return parseAnswer('incidents', text)
    .incidents.map(
      (x) =>
        `[${new Date(x.fromMs).toISOString().slice(11, 19)}-${new Date(x.toMs).toISOString().slice(11, 19)}, ${String(x.requests)} requests: ` +
        x.rootCauses.map((c) => `${c.service}@${c.host ?? '-'} ${c.score.toFixed(3)}`).join(', ') +
        ']',
    )
    .join(' ');
}

async function main(): Promise<void> {
  const spec = presetSpec('microservices', RATE ? { ratePerSecond: RATE } : {});
  const probe = createGenerator(spec, { requests: 1000, seed: 1, start: START });
  const requests = Math.floor((SPANS * 1000) / probe.expectedSpans);
  const gen = createGenerator(spec, { requests, seed: 1, start: START });
  const fromMs = gen.truth.start.epochMs;
  const toMs = Math.ceil(fromMs + gen.truth.durationMs + 60_000);
  let store = openStore({ dataDir: DATA_DIR });
  await migrate(store);
  const have = (await selectStats(store)).spans;
  if (have < gen.expectedSpans * 0.99 || process.env.FRESH === '1') {
    await store.close();
    rmSync(DATA_DIR, { recursive: true, force: true });
    store = openStore({ dataDir: DATA_DIR });
    await migrate(store);
    const t = performance.now();
    await insertGenerated(store, gen, 'bench-incidents');
    console.log(`loaded in ${((performance.now() - t) / 1000).toFixed(0)} s`);
  }
  const spans = (await selectStats(store)).spans;
  console.log(
    `microservices: ${requests.toLocaleString()} requests, ${spans.toLocaleString()} spans, ` +
      `${((toMs - fromMs) / 60_000).toFixed(0)} min; fault ${JSON.stringify(gen.truth.app?.fault)}`,
  );
  const ns = (ms: number): bigint => BigInt(Math.round(ms)) * 1_000_000n;
  const built = await materializeCallBuckets(store, {
    fromNs: ns(fromMs),
    toNs: ns(toMs),
    nowNs: ns(Date.now()),
  });
  console.log(`stored call buckets: ${String(built.chunks)} chunks built`);
  // The narrow span copy's backfill (a store migrated before its spans were: none to copy on
  // a store the bench filled after migrating), as the server runs it in the background.
  const backfill = startTraceSpansBackfill(store, {
    log: (line) => {
      console.log(line);
    },
  });
  await backfill.drain();
  await backfill.stop();
  // PROFILE=1: the wall time of each query the requests run, by its first lines (the store's
  // query, wrapped: the engine runs in process, so this is where a request's time goes).
  // The engine runs one query at a time, so a query's wall time includes its wait behind the
  // others: `own` is its time after the one that ended before it (its turn and its rows).
  const profile: { sql: string; startMs: number; endMs: number; rows: number }[] = [];
  if (process.env.PROFILE === '1') {
    const query = store.query.bind(store);
    store.query = async <T>(q: Parameters<typeof query>[0]): Promise<T[]> => {
      const startMs = performance.now();
      let rows = -1;
      try {
        const got = await query<T>(q);
        rows = got.length;
        return got;
      } finally {
        const text = q.text.replace(/\s+/g, ' ').trim();
        profile.push({ sql: text.slice(0, 150), startMs, endMs: performance.now(), rows });
      }
    };
  }
  const ownTimes = (): { sql: string; ms: number; own: number; rows: number }[] => {
    let lastEnd = -Infinity;
    return [...profile]
      .sort((a, b) => a.endMs - b.endMs)
      .map((p) => {
        const own = p.endMs - Math.max(p.startMs, lastEnd);
        lastEnd = p.endMs;
        return { sql: p.sql, ms: p.endMs - p.startMs, own, rows: p.rows };
      });
  };
  const api = await buildStoreApi(store);
  // The question asked: the whole run, or its last LAST_MIN minutes (ending at the run's end).
  const askFrom = LAST_MIN ? toMs - LAST_MIN * 60_000 : fromMs;
  if (LAST_MIN)
    console.log(
      `asking for the last ${String(LAST_MIN)} min: ${new Date(askFrom).toISOString()} to ${new Date(toMs).toISOString()}`,
    );
  if (process.env.WARM === '1') {
    const t = performance.now();
    for (const route of ['episodes', 'incidents'] as const)
      await api.inject({
        method: 'GET',
        url: endpointUrl(route, { query: { from: fromMs - 1, to: toMs + 1 } }),
      });
    profile.length = 0;
    console.log(`warmed: the whole run asked once (${(performance.now() - t).toFixed(0)} ms)`);
  }
  let last = '';
  let lastEpisodes = '';
  const order = SHARED
    ? Array.from({ length: RUNS }, (_, i) => [
        ['episodes', i],
        ['incidents', i],
      ])
        .flat()
        .map(([r, i]) => ({ route: r as 'episodes' | 'incidents', i: i as number }))
    : (['episodes', 'incidents'] as const).flatMap((route) =>
        Array.from({ length: RUNS }, (_, i) => ({ route, i })),
      );
  for (const { route, i } of order) {
    const t = performance.now();
    const cpu = process.cpuUsage();
    const res = await api.inject({
      method: 'GET',
      url: endpointUrl(route, {
        query: SHARED ? { from: askFrom + i, to: toMs + i } : { from: askFrom, to: toMs },
      }),
    });
    const used = process.cpuUsage(cpu);
    if (profile.length > 0) {
      const own = ownTimes();
      for (const p of [...own]
        .sort((a, b) => b.own - a.own)
        .slice(0, Number(process.env.PROFILE_TOP ?? 14)))
        console.log(
          `  ${p.own.toFixed(0).padStart(6)} ms own (${p.ms.toFixed(0).padStart(5)} wall, ${String(p.rows).padStart(6)} rows)  ${p.sql.slice(0, 110)}`,
        );
      const sum = own.reduce((a, p) => a + p.own, 0);
      console.log(`  ${String(profile.length)} queries, ${sum.toFixed(0)} ms own in all`);
      profile.length = 0;
    }
    const found = describeAnswer(route, res.statusCode, res.body);
    if (route === 'incidents' && res.statusCode === 200) last = res.body;
    if (route === 'episodes' && res.statusCode === 200) lastEpisodes = res.body;
    console.log(
      `${route} run ${String(i + 1)}: ${String(res.statusCode)} in ` +
        `${(performance.now() - t).toFixed(0)} ms, CPU ${((used.user + used.system) / 1000).toFixed(0)} ms, ` +
        `load ${(loadavg()[0] ?? 0).toFixed(1)}; ${found}`,
    );
  }
  const out = process.env.ANSWER_OUT;
  if (out) {
    writeFileSync(out, last);
    writeFileSync(out.replace(/(\.json)?$/, '.episodes.json'), lastEpisodes);
  }
  // The planted fault scored as bench:faults scores a real one (faults/score.ts).
  const fault = gen.truth.app?.fault;
  if (fault && last !== '') {
    const answer = parseAnswer('incidents', last);
    const label = {
      fault: 'cpu' as const,
      target: 'customer' as const,
      startMs: fromMs + fault.startMs,
      endMs: fromMs + fault.endMs,
      detail: '',
    };
    const r = scoreFault(label, answer.incidents);
    const w = (answer.windowSeconds ?? 10) * 1000;
    const inRange = label.startMs >= askFrom;
    console.log(
      `planted fault on ${fault.service} (${fault.host}) ${new Date(label.startMs).toISOString().slice(11, 19)}-${new Date(label.endMs).toISOString().slice(11, 19)}` +
        (inRange
          ? `: ${r.detected ? `rank ${String(r.rank || '-')} (${r.top.join(', ')}), first window ${String(delayWindows(r.delayMs ?? 0, w))} after its start` : 'not found'}`
          : `: began before the range asked${r.detected ? `; rank ${String(r.rank || '-')} (${r.top.join(', ')})` : ''}`),
    );
  }
  await api.close();
  await store.close();
}

await main();
