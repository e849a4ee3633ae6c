// npm run bench:whatif-slider — the dashboard's whole-request slider through HTTP (issue #14):
// 100,000 requests of the tracegen `microservices` preset stored in the embedded engine, a
// `tailscope serve` child process, and POST /api/v1/whatif with quality 'preview' per slider
// position, one at a time (as the dashboard sends them while a control moves): hedge delay
// p80-p99 then p50-p79 on pricing, pool workers 1-20 on route. Prints the
// first (cold: read and build) answer, the median and worst update, the full answer at rest,
// and the load average (the machine may be shared). Not a test.
//
// env: REQUESTS (default 100000), DATA_DIR (default: a directory per REQUESTS, reused).
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createGenerator, presetSpec } from '@tailscope/tracegen';
import { freePort, startServer } from './analysis-support';
import { loadGenerated } from './generated-store';
import {
  endpointUrl,
  parseAnswer,
  type EndpointResponse,
  type WhatIfBody,
} from '@tailscope/contracts';

const REQUESTS = Number(process.env.REQUESTS ?? 100_000);
const DATA_DIR = resolve(
  process.env.DATA_DIR ?? join(tmpdir(), `tailscope-bench-slider-microservices-${REQUESTS}`),
);
const START = '2025-01-01T00:00:00Z';

/** Loads the preset unless the directory already holds it; returns the time range. */
function load(): Promise<{ fromMs: number; toMs: number }> {
  const gen = createGenerator(presetSpec('microservices'), {
    requests: REQUESTS,
    seed: 1,
    start: START,
  });
  return loadGenerated(DATA_DIR, gen, 'bench-slider', `microservices: ${REQUESTS} requests`);
}

type Answer = EndpointResponse<'whatif'>;
type Policy = WhatIfBody['policy'];

async function post(port: number, body: WhatIfBody): Promise<{ ms: number; a: Answer }> {
  const t = performance.now();
  const res = await fetch(`http://127.0.0.1:${port}${endpointUrl('whatif', {})}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const ms = performance.now() - t;
  if (!res.ok) throw new Error(`${res.status} ${text.slice(0, 300)}`);
  return { ms, a: parseAnswer('whatif', text) };
}

const median = (xs: number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const load1 = (): string =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

/**
 * Steps one control through its positions, previews one at a time, then (`rest`) the full
 * answer.
 */
async function drag(
  port: number,
  range: { fromMs: number; toMs: number },
  edge: { leafService: string; leafOperation: string },
  positions: Policy[],
  rest = true,
): Promise<void> {
  const base = { ...edge, from: range.fromMs, to: range.toMs, seed: 1 };
  const first = positions[0];
  if (first === undefined) throw new Error('no positions');
  const cold = await post(port, { ...base, policy: first, quality: 'preview' });
  const times: number[] = [];
  for (const policy of positions)
    times.push((await post(port, { ...base, policy, quality: 'preview' })).ms);
  const kind = first.kind;
  const span = `${JSON.stringify(first)} .. ${JSON.stringify(positions[positions.length - 1] ?? first)}`;
  console.log(
    `  ${kind} on ${edge.leafService} ${edge.leafOperation} (${span}), ${cold.a.requests.toLocaleString()} edge groups: first ${cold.ms.toFixed(0)} ms; ` +
      `${positions.length} positions: per update median ${median(times).toFixed(0)} ms, worst ${Math.max(...times).toFixed(0)} ms; load average ${load1()}`,
  );
  console.log(`    per position, ms: ${times.map((t) => t.toFixed(0)).join(' ')}`);
  const last = positions[positions.length - 1] ?? first;
  if (!rest) return;
  try {
    const rest = await post(port, { ...base, policy: last, quality: 'full' });
    console.log(`    full answer at rest ${rest.ms.toFixed(0)} ms; load average ${load1()}`);
  } catch (e) {
    console.log(`    full answer at rest failed: ${e instanceof Error ? e.message : String(e)}`);
  }
  const sampled = cold.a.notes.find((n) => /uniform sample|span limit/.test(n));
  if (sampled) console.log(`    note: ${sampled}`);
}

{
  const range = await load();
  const port = await freePort();
  const child = await startServer(port, DATA_DIR, await freePort());
  try {
    console.log(
      `whole-request slider through HTTP (preview), ${REQUESTS.toLocaleString()} requests; load average ${load1()}`,
    );
    await drag(
      port,
      range,
      { leafService: 'pricing', leafOperation: 'GET /quote' },
      Array.from({ length: 20 }, (_, i) => ({ kind: 'hedge', delayPercentile: 80 + i })),
    );
    // The low end a user can drag to too: more calls exceed the delay, more backups drawn.
    await drag(
      port,
      range,
      { leafService: 'pricing', leafOperation: 'GET /quote' },
      Array.from({ length: 30 }, (_, i) => ({ kind: 'hedge', delayPercentile: 50 + i })),
      false,
    );
    await drag(
      port,
      range,
      { leafService: 'route', leafOperation: 'HTTP GET /route' },
      Array.from({ length: 20 }, (_, i) => ({ kind: 'pool', workers: i + 1 })),
    );
  } finally {
    child.kill('SIGTERM');
  }
}
