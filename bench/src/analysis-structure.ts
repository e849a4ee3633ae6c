// bench:analysis on an application preset (#12): `--preset microservices --spans N` loads the
// preset into a fresh embedded store, stores its fan-outs, then times /api/v1/edges and
// /api/v1/fanouts from stored data (RUNS runs each: median and max) with the server's CPU and
// memory, beside the same requests on the fan-out-only preset (BASELINE, bigtable-multiget; its
// store is reused when it holds the spans; BASELINE=none skips it), so the cost of the
// generality is visible. /api/v1/edges answering 404 prints "not available".
import {
  dataDirFor,
  loadPreset,
  procStats,
  storeFanouts,
  withServer,
  type Loaded,
} from './analysis-support';
import { endpointUrl, parseAnswer } from '@tailscope/contracts';

interface Timing {
  medianMs: number;
  maxMs: number;
  cpuMedianMs: number;
  summary: string;
}
type Result = Timing | 'not available';

interface Measured {
  label: string;
  spans: number;
  routes: Map<string, Result>;
  idleRss: number;
  peakRss: number;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] ?? NaN) : ((s[m - 1] ?? NaN) + (s[m] ?? NaN)) / 2;
};

function summarize(route: string, body: string): string {
  if (route.startsWith('fanouts')) {
    const r = parseAnswer('fanouts', body);
    const kinds = r.fanouts.map((f) => f.structure ?? '?').join(', ');
    return `${r.fanouts.length} operation(s)${kinds ? ` (${kinds})` : ''}${r.hint ? `; hint: ${r.hint}` : ''}`;
  }
  const r = parseAnswer('edges', body);
  const by = new Map<string, number>();
  for (const e of r.edges) by.set(e.structure, (by.get(e.structure) ?? 0) + 1);
  return `${r.edges.length} edges (${[...by].map(([k, n]) => `${n} ${k}`).join(', ')}), ${r.duplicates} duplicates`;
}

async function time(pid: number, route: string, url: string, runs: number) {
  const walls: number[] = [];
  const cpus: number[] = [];
  let summary = '';
  for (let i = 0; i < runs; i++) {
    const before = procStats(pid).cpuMs;
    const t = performance.now();
    const res = await fetch(url);
    const body = await res.text();
    walls.push(performance.now() - t);
    cpus.push(procStats(pid).cpuMs - before);
    if (res.status === 404 && route === 'edges') return 'not available' as const;
    if (!res.ok) throw new Error(`${route}: ${res.status} ${body.slice(0, 300)}`);
    summary = summarize(route, body);
  }
  return {
    medianMs: median(walls),
    maxMs: Math.max(...walls),
    cpuMedianMs: median(cpus),
    summary,
  };
}

async function measure(
  label: string,
  dataDir: string,
  op: Loaded,
  spans: number,
  limitMiB: number,
  runs: number,
): Promise<Measured> {
  return withServer(dataDir, limitMiB, async (base, pid) => {
    const idleRss = procStats(pid).rss;
    // Every URL from the contract's paths (packages/contracts), on the server's origin.
    const origin = new URL(base).origin;
    const range = { from: op.fromMs, to: op.toMs };
    const one = { ...range, leafService: op.leafService, leafOperation: op.leafOperation };
    const routes = new Map<string, Result>();
    for (const [route, url] of [
      ['edges', origin + endpointUrl('edges', { query: range })],
      ['fanouts', origin + endpointUrl('fanouts', { query: range })],
      ['fanouts one op', origin + endpointUrl('fanouts', { query: one })],
    ] as const) {
      const r = await time(pid, route, url, runs);
      routes.set(route, r);
      console.log(
        `${label} ${route.padEnd(15)} ${r === 'not available' ? r : `median ${r.medianMs.toFixed(0)} ms, max ${r.maxMs.toFixed(0)} ms, server CPU ${r.cpuMedianMs.toFixed(0)} ms; ${r.summary}`}`,
      );
    }
    return { label, spans, routes, idleRss, peakRss: procStats(pid).peak };
  });
}

function cell(r: Result | undefined): string {
  if (r === undefined) return '-';
  if (r === 'not available') return 'not available';
  return `${r.medianMs.toFixed(0)} / ${r.maxMs.toFixed(0)} ms`;
}

function printTable(rows: Measured[], runs: number): void {
  const width = 34;
  const head = rows.map((m) => `${m.label} (${(m.spans / 1e6).toFixed(1)}M spans)`.padEnd(width));
  console.log(`\nfrom stored data, ${runs} runs: median / max wall`);
  console.log(`${'request'.padEnd(18)} ${head.join(' ')}`);
  for (const route of ['edges', 'fanouts', 'fanouts one op'])
    console.log(
      `${`/${route}`.padEnd(18)} ${rows.map((m) => cell(m.routes.get(route)).padEnd(width)).join(' ')}`,
    );
  console.log(
    `${'server RSS'.padEnd(18)} ${rows.map((m) => `idle ${m.idleRss.toFixed(0)} MiB, peak ${m.peakRss.toFixed(0)} MiB`.padEnd(width)).join(' ')}`,
  );
}

export async function runStructureBench(opts: {
  scenario: string;
  spans: number;
  limitMiB: number;
}): Promise<void> {
  const runs = Number(process.env.RUNS ?? 5);
  const baseline = process.env.BASELINE ?? 'bigtable-multiget';
  const { scenario, spans, limitMiB } = opts;
  const dir = dataDirFor(scenario, spans);
  // A fresh store by default: the application's spans, nothing left from another run.
  const op = await loadPreset({
    scenario,
    spans,
    dataDir: dir,
    fresh: process.env.REUSE !== '1',
  });
  await storeFanouts(dir, op);
  const rows = [await measure(scenario, dir, op, spans, limitMiB, runs)];
  if (baseline !== 'none') {
    const baseDir = dataDirFor(baseline, spans, '-baseline');
    const baseOp = await loadPreset({
      scenario: baseline,
      spans,
      dataDir: baseDir,
      fresh: process.env.FRESH === '1',
    });
    await storeFanouts(baseDir, baseOp);
    rows.push(await measure(baseline, baseDir, baseOp, spans, limitMiB, runs));
    console.log(`baseline data in ${baseDir} (reused by the next run; delete it when done)`);
  }
  printTable(rows, runs);
  console.log(`\ndata in ${dir} (delete it when done)`);
}
