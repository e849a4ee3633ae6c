// npm run bench:analysis — 10 million tracegen spans in the embedded engine, then
// /api/v1/fanouts and /api/v1/stragglers (and /hosts, /leaves) for one operation over the whole
// range, against a `tailscope serve` child process. Prints wall time, the server's CPU time per
// request and its resident memory. Not a test.
//
// env: SPANS (default 10000000), SCENARIO (bigtable-multiget), RUNS (3), LIVE_RUNS (1), DATA_DIR
// (a temp dir, reused when it already holds the spans: FRESH=1 rebuilds it), SKIP_LIVE=1 (keep
// stored fan-outs and measure only them), LIMIT_MIB (6144: the server is stopped above it).
//
// `npm run bench:analysis -- --preset microservices --spans 10000000`: an application preset
// (#12) instead; times /api/v1/edges and /api/v1/fanouts from stored data beside the same
// figures on the fan-out-only preset (analysis-structure.ts).
import { presetSpec } from '@tailscope/tracegen';
import { sql } from '@tailscope/api';
import {
  dataDirFor,
  loadPreset,
  procStats,
  storeFanouts,
  withServer,
  withStore,
  type Loaded,
} from './analysis-support';
import { runStructureBench } from './analysis-structure';
import { endpointUrl, parseAnswer } from '@tailscope/contracts';

/** `--preset NAME` and `--spans N` override SCENARIO and SPANS. */
function flag(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const SPANS = Number(flag('--spans') ?? process.env.SPANS ?? 10_000_000);
const SCENARIO = flag('--preset') ?? process.env.SCENARIO ?? 'bigtable-multiget';
const RUNS = Number(process.env.RUNS ?? 3);
const LIVE_RUNS = Number(process.env.LIVE_RUNS ?? 1);
const DATA_DIR = dataDirFor(SCENARIO, SPANS);
const LIMIT_MIB = Number(process.env.LIMIT_MIB ?? 6144);

type Op = Loaded;

/** One server lifetime: every route `runs` times; prints wall, server CPU and memory. */
async function measure(op: Op, runs: number, label: string): Promise<void> {
  await withServer(DATA_DIR, LIMIT_MIB, async (base, pid) => {
    // Every URL from the contract's paths (packages/contracts), on the server's origin.
    const origin = new URL(base).origin;
    const q = {
      from: op.fromMs,
      to: op.toMs,
      leafService: op.leafService,
      leafOperation: op.leafOperation,
    };
    const routes: [string, string][] = [
      ['fanouts', origin + endpointUrl('fanouts', { query: q })],
      ['stragglers', origin + endpointUrl('stragglers', { query: q })],
      [
        'stragglersAll',
        origin + endpointUrl('stragglers', { query: { ...q, maxFanouts: 1000000 } }),
      ],
      ['hosts', origin + endpointUrl('hosts', { query: { ...q, windowSeconds: 60 } })],
      ['leaves', origin + endpointUrl('leaves', { query: q })],
    ];
    console.log(
      `\n${label}: server pid ${pid}, idle RSS ${procStats(pid).rss.toFixed(0)} MiB; ${op.leafService}/${op.leafOperation}, ${runs} run(s) each`,
    );
    for (const [name, url] of routes) {
      const walls: number[] = [];
      const cpus: number[] = [];
      let bytes = 0;
      let summary = '';
      for (let i = 0; i < runs; i++) {
        const before = procStats(pid).cpuMs;
        const t = performance.now();
        const res = await fetch(url);
        const body = Buffer.from(await res.arrayBuffer());
        walls.push(performance.now() - t);
        cpus.push(procStats(pid).cpuMs - before);
        if (!res.ok) throw new Error(`${name}: ${res.status} ${body.toString().slice(0, 300)}`);
        bytes = body.length;
        summary = describe(name, body);
      }
      const st = procStats(pid);
      console.log(
        `${name.padEnd(13)} wall ${walls.map((w) => w.toFixed(0)).join(' / ')} ms   server CPU ${cpus.map((c) => c.toFixed(0)).join(' / ')} ms   ` +
          `RSS ${st.rss.toFixed(0)} MiB (peak ${st.peak.toFixed(0)})   ${(bytes / 1024).toFixed(0)} KiB  ${summary}`,
      );
    }
    console.log(`server peak RSS ${procStats(pid).peak.toFixed(0)} MiB`);
  });
}

function describe(name: string, body: Buffer): string {
  if (name === 'fanouts') {
    const f = parseAnswer('fanouts', body.toString()).fanouts[0];
    return `${f?.requests ?? 0} fan-outs, width ${f?.width.max ?? 0}`;
  }
  if (name.startsWith('stragglers')) {
    const s = parseAnswer('stragglers', body.toString());
    return `${s.calls.toLocaleString()} calls, ${s.rows.length} rows${s.sampled ? ' (uniform sample of fan-outs)' : ''}`;
  }
  return '';
}

async function main(): Promise<void> {
  if (presetSpec(SCENARIO).app) {
    await runStructureBench({ scenario: SCENARIO, spans: SPANS, limitMiB: LIMIT_MIB });
    return;
  }
  const op = await loadPreset({
    scenario: SCENARIO,
    spans: SPANS,
    dataDir: DATA_DIR,
    fresh: process.env.FRESH === '1',
  });
  if (process.env.SKIP_LIVE !== '1') {
    // Live detection first: no stored fan-outs.
    await withStore(DATA_DIR, async (s) => {
      await s.command(sql`DROP TABLE IF EXISTS tailscope_fanouts`);
      await s.command(sql`DROP TABLE IF EXISTS tailscope_fanout_chunks`);
    });
    await measure(op, LIVE_RUNS, 'live detection (no stored fan-outs)');
  }
  await storeFanouts(DATA_DIR, op);
  await measure(op, RUNS, 'stored fan-outs (tailscope_fanouts)');
  console.log(`\ndata in ${DATA_DIR} (reused by the next run; delete it when done)`);
}

await main();
