// npx tsx bench/src/sampling.ts — the cost of the `sampling` block, of weighted edges,
// fan-outs, stragglers, hosts, leaves and what-if, and of trace search with span filters (Jaeger semantics), on a stored data set
// (DATA_DIR, e.g. a copy of bench:episodes' 1M spans). With WEIGHT=1 it first marks half the
// traces `ot=th:8` (an ALTER UPDATE: use a copy). Prints median wall and process CPU (the
// embedded engine runs in-process) per request. Not a test.
import {
  buildStoreApi,
  openStore,
  migrate,
  raw,
  selectSamplingInfo,
  selectStoredBounds,
} from '@tailscope/api';
import { API_PATHS, type EndpointResponse } from '@tailscope/contracts';

const DATA_DIR = process.env.DATA_DIR ?? '/tmp/sampling-1m';
const RUNS = Number(process.env.RUNS ?? 3);

const store = openStore({ dataDir: DATA_DIR });
await migrate(store);
if (process.env.WEIGHT === '1') {
  await store.client.command({
    query: `ALTER TABLE otel_traces UPDATE TraceState = 'ot=th:8' WHERE cityHash64(TraceId) % 2 = 0 SETTINGS mutations_sync = 2`,
  });
}
const bounds = await selectStoredBounds(store);
if (!bounds) throw new Error(`no spans in ${DATA_DIR}`);
const from = Number(bounds.minNs / 1_000_000n);
const to = Number(bounds.maxNs / 1_000_000n) + 1;
const [count] = await store.query<{ n: string; withTs: string }>(
  raw(
    `SELECT toString(count()) AS n, toString(countIf(TraceState != '')) AS withTs FROM otel_traces`,
  ),
);
const services = await store.query<{ s: string; o: string; roots: string; n: string }>(
  raw(`SELECT ServiceName AS s, SpanName AS o, toString(countIf(ParentSpanId = '')) AS roots, toString(count()) AS n
       FROM otel_traces GROUP BY s, o ORDER BY count() DESC LIMIT 6`),
);
console.log(`${count?.n} spans (${count?.withTs} with TraceState), ${(to - from) / 1000} s`);
console.log(services);
const leaf = services.find((x) => x.roots === '0') ?? services[0];
const api = await buildStoreApi(store);
const range = `from=${from}&to=${to}`;
const enc = encodeURIComponent;
// The busiest fan-out's leaf operation, for stragglers, hosts, leaves and what-if.
const top = (await api.inject({ method: 'GET', url: `${API_PATHS.fanouts.path}?${range}` })).json<
  EndpointResponse<'fanouts'>
>().fanouts[0];
const fanLeaf = { s: top?.leafService ?? '', o: top?.leafOperation ?? '' };
const leafQuery = `leafService=${enc(fanLeaf.s)}&leafOperation=${enc(fanLeaf.o)}`;
const urls = [
  `/api/v1/traces?${range}&limit=100`,
  `/api/v1/traces?${range}&service=${enc(leaf?.s ?? '')}&limit=100`,
  `/api/v1/traces?${range}&service=${enc(leaf?.s ?? '')}&operation=${enc(leaf?.o ?? '')}&minDurationMs=1&limit=100&order=slowest`,
  `/api/v1/traces?${range}&minDurationMs=50&limit=100`,
  `/api/v1/edges?${range}`,
  `/api/v1/fanouts?${range}`,
  `/api/v1/stragglers?${range}&${leafQuery}`,
  `/api/v1/hosts?${range}&${leafQuery}`,
  `/api/v1/leaves?${range}&${leafQuery}`,
  `POST /api/v1/whatif ${leafQuery}`,
];
/** POST /api/v1/whatif over the range: hedge the leaf operation at its p95. */
const whatIfBody = {
  from,
  to,
  leafService: fanLeaf.s,
  leafOperation: fanLeaf.o,
  policy: { kind: 'hedge' },
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
for (const url of urls) {
  const wall: number[] = [];
  const cpu: number[] = [];
  let note = '';
  for (let i = 0; i < RUNS; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const res = url.startsWith('POST ')
      ? await api.inject({ method: 'POST', url: '/api/v1/whatif', payload: whatIfBody })
      : await api.inject({ method: 'GET', url });
    wall.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
    if (url.includes('/leaves')) {
      note = `${res.statusCode} ${res.rawPayload.length} bytes`;
      continue;
    }
    const body = res.json<{
      sampling?: unknown;
      traces?: unknown[];
      edges?: unknown[];
      fanouts?: unknown[] | number;
      hosts?: unknown[];
    }>();
    const n = Array.isArray(body.fanouts)
      ? body.fanouts.length
      : (body.fanouts ?? (body.traces ?? body.edges ?? body.hosts ?? []).length);
    note = `${res.statusCode} ${JSON.stringify(body.sampling)} n=${n}`;
  }
  console.log(
    `${url.replace(range, 'RANGE')}: wall ${median(wall).toFixed(0)} ms, cpu ${median(cpu).toFixed(0)} ms  ${note}`,
  );
}
// The sampling aggregate alone.
const wall: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const t0 = performance.now();
  await selectSamplingInfo(store, { fromNs: bounds.minNs, toNs: bounds.maxNs + 1n });
  wall.push(performance.now() - t0);
}
console.log(`selectSamplingInfo over the range: wall ${median(wall).toFixed(0)} ms`);
await api.close();
await store.close();
