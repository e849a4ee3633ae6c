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
import {
  API_PATHS,
  endpointUrl,
  parseAnswer,
  type EndpointQuery,
  type WhatIfBody,
} from '@tailscope/contracts';

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
const range = { from: String(from), to: String(to) };
// The busiest fan-out's leaf operation, for stragglers, hosts, leaves and what-if.
const top = parseAnswer(
  'fanouts',
  (await api.inject({ method: 'GET', url: endpointUrl('fanouts', { query: range }) })).body,
).fanouts[0];
const leafQuery = { leafService: top?.leafService ?? '', leafOperation: top?.leafOperation ?? '' };
/** POST /api/v1/whatif over the range: hedge the leaf operation at its p95. */
const whatIfBody: WhatIfBody = {
  ...range,
  ...leafQuery,
  policy: { kind: 'hedge' },
};

/** One request of the run, and what its answer says: the sampling block and a count. */
interface Asked {
  label: string;
  method: 'GET' | 'POST';
  url: string;
  /** null: only the answer's size is printed (leaves answer Arrow). */
  read: ((text: string) => { sampling: unknown; n: number }) | null;
}
const traces = (query: Omit<EndpointQuery<'traces'>, 'from' | 'to'>): Asked => {
  const url = endpointUrl('traces', { query: { ...range, ...query } });
  return {
    label: url,
    method: 'GET',
    url,
    read: (t) => {
      const a = parseAnswer('traces', t);
      return { sampling: a.sampling, n: a.traces.length };
    },
  };
};
const leafUrl = (name: 'stragglers' | 'hosts' | 'leaves') =>
  endpointUrl(name, { query: { ...range, ...leafQuery } });
const asked: Asked[] = [
  traces({ limit: 100 }),
  traces({ service: leaf?.s ?? '', limit: 100 }),
  traces({
    service: leaf?.s ?? '',
    operation: leaf?.o ?? '',
    minDurationMs: 1,
    limit: 100,
    order: 'slowest',
  }),
  traces({ minDurationMs: 50, limit: 100 }),
  {
    label: endpointUrl('edges', { query: range }),
    method: 'GET',
    url: endpointUrl('edges', { query: range }),
    read: (t) => {
      const a = parseAnswer('edges', t);
      return { sampling: a.sampling, n: a.edges.length };
    },
  },
  {
    label: endpointUrl('fanouts', { query: range }),
    method: 'GET',
    url: endpointUrl('fanouts', { query: range }),
    read: (t) => {
      const a = parseAnswer('fanouts', t);
      return { sampling: a.sampling, n: a.fanouts.length };
    },
  },
  {
    label: leafUrl('stragglers'),
    method: 'GET',
    url: leafUrl('stragglers'),
    read: (t) => {
      const a = parseAnswer('stragglers', t);
      return { sampling: a.sampling, n: a.fanouts };
    },
  },
  {
    label: leafUrl('hosts'),
    method: 'GET',
    url: leafUrl('hosts'),
    read: (t) => {
      const a = parseAnswer('hosts', t);
      return { sampling: a.sampling, n: a.hosts.length };
    },
  },
  { label: leafUrl('leaves'), method: 'GET', url: leafUrl('leaves'), read: null },
  {
    label: `${API_PATHS.whatif.method} ${API_PATHS.whatif.path} ${new URLSearchParams(leafQuery).toString()}`,
    method: 'POST',
    url: API_PATHS.whatif.path,
    read: (t) => ({ sampling: parseAnswer('whatif', t).sampling, n: 0 }),
  },
];
const rangeText = endpointUrl('fanouts', { query: range }).split('?')[1] ?? '';
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
for (const q of asked) {
  const wall: number[] = [];
  const cpu: number[] = [];
  let note = '';
  for (let i = 0; i < RUNS; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const res = await api.inject(
      q.method === 'POST'
        ? { method: 'POST', url: q.url, payload: whatIfBody }
        : { method: 'GET', url: q.url },
    );
    wall.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
    const read = res.statusCode === 200 ? q.read?.(res.body) : undefined;
    note = read
      ? `${res.statusCode} ${JSON.stringify(read.sampling)} n=${read.n}`
      : `${res.statusCode} ${res.rawPayload.length} bytes`;
  }
  console.log(
    `${q.label.replace(rangeText, 'RANGE')}: wall ${median(wall).toFixed(0)} ms, cpu ${median(cpu).toFixed(0)} ms  ${note}`,
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
