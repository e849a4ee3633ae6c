// bench:capacity-truth's HotROD part (issue 29): HotROD (its services one process each in
// loopback-only network namespaces, the real `tailscope serve` receiving their OTLP: the fault
// benchmark's cluster, bench/src/faults/cluster.ts) recorded at a low dispatch rate predicts its
// root p50/p99 at higher rates, against windows recorded at those rates. HotROD's customer
// service holds one mutex around its ~300 ms "MySQL" query and the frontend calls route on a
// pool of 3 workers: the latency stays flat, then bends up as the mutex saturates (the knee:
// requests 1 / rate apart against a 300 ms lock, at about 3.3 dispatches/s).
//
// The load is open-loop and sent on a schedule (scripts.ts LOAD: request i leaves at i / rate):
// the model reads that arrival pattern from the recording's gaps (docs/capacity.md), and "more
// concurrent clients" of a closed loop is more load only as far as the latency lets them send
// (docs/capacity.md "Closed loops"); the rates are the load knob here.
//
// env: TRUTH_HOTROD_BASE (dispatches/s recorded, 0.8), TRUTH_HOTROD_RATES (1.6,2.8,3.2,3.6; the
// base rate among them records another base window, whose own table follows),
// TRUTH_HOTROD_SECONDS (per window, 120), HOTROD_BIN; TRUTH_HOTROD_KEEP=<dir> keeps the store
// and the windows there, TRUTH_HOTROD_REPLAY=<dir> runs nothing and predicts again from them.
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WhatIfResponse } from '@tailscope/contracts';
import { buildStoreApi, openStore } from '@tailscope/api';
import { startCluster } from './faults/cluster';
import { faultsSkipReason, hotrodPath } from './faults/requirements';
import { CONTROL_ADDRESS } from './faults/topology';

const BASE = Number(process.env.TRUTH_HOTROD_BASE ?? 0.8);
const RATES = (process.env.TRUTH_HOTROD_RATES ?? '1.6,2.8,3.2,3.6').split(',').map(Number);
const SECONDS = Number(process.env.TRUTH_HOTROD_SECONDS ?? 120);
/** After a rate starts, before its window: the queue reaches its new level. */
const SETTLE_S = 10;
/** Keep the cluster's store and windows in this directory; predict again from one. */
const KEEP = process.env.TRUTH_HOTROD_KEEP;
const REPLAY = process.env.TRUTH_HOTROD_REPLAY;
const ROOT = { leafService: 'frontend', leafOperation: 'HTTP GET /dispatch' };

const POST_JSON = `
const [url, body] = process.argv.slice(1);
const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
process.stdout.write(JSON.stringify({ status: r.status, body: await r.text() }));
`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rel = (got: number, want: number): string => {
  const e = (got / want - 1) * 100;
  return `${e >= 0 ? '+' : ''}${e.toFixed(1)}%`;
};

interface Window {
  rate: number;
  fromMs: number;
  toMs: number;
  load: number;
}

type Post = (body: unknown) => Promise<{ status: number; body: string }>;

/**
 * The table: each window measured (its own 1x) against the base window's prediction. Windows
 * at the base rate after the first (TRUTH_HOTROD_RATES may repeat it) are bases too: a table
 * per base, each predicting the other rates' windows (how far two recordings alike predict).
 */
async function predictWindows(post: Post, windows: Window[]): Promise<void> {
  const first = windows[0];
  if (!first) return;
  const bases = windows.filter((w) => w.rate === first.rate);
  const others = windows.filter((w) => w.rate !== first.rate);
  for (const [i, base] of bases.entries()) {
    if (bases.length > 1) console.log(`\nfrom base window ${i + 1} of ${bases.length}:`);
    await predictFrom(post, base, others);
  }
}

async function predictFrom(post: Post, base: Window, rest: Window[]): Promise<void> {
  const whatIf = async (w: Window, factor: number): Promise<WhatIfResponse | string> => {
    const res = await post({
      ...ROOT,
      from: w.fromMs,
      to: w.toMs,
      policy: { kind: 'load', factor },
    });
    return res.status === 200
      ? (JSON.parse(res.body) as WhatIfResponse)
      : `${res.status}: ${res.body}`;
  };
  console.log(
    '| rate | factor | p50 predicted [95%] | p50 measured | error | p99 predicted [95%] | p99 measured | error | requests measured | load avg |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  const e = (x: { value: number; low: number; high: number }) =>
    `${x.value.toFixed(1)} [${x.low.toFixed(1)}, ${x.high.toFixed(1)}]`;
  for (const w of [base, ...rest]) {
    // Measured: the window's own recording (the what-if's baseline at 1x); predicted: from
    // the base window at the rates' ratio.
    const own = await whatIf(w, 1);
    const pred = await whatIf(base, w.rate / base.rate);
    if (typeof own === 'string' || typeof pred === 'string') {
      console.log(
        `| ${w.rate} | ${typeof own === 'string' ? own : ''} ${typeof pred === 'string' ? pred : ''} |`,
      );
      continue;
    }
    const m = own.capacity?.request.baseline;
    const p = pred.capacity?.request.whatIf;
    if (!m) continue;
    if (!p) {
      console.log(
        `| ${w.rate} | x${(w.rate / base.rate).toFixed(2)} | saturated: ${pred.reason ?? ''} | ${m.p50.toFixed(1)} | | | ${m.p99.toFixed(1)} | | ${own.requests} | ${w.load.toFixed(1)} |`,
      );
      continue;
    }
    console.log(
      `| ${w.rate} | x${(w.rate / base.rate).toFixed(2)} | ${e(p.p50)} | ${m.p50.toFixed(1)} | ${rel(p.p50.value, m.p50)} | ${e(p.p99)} | ${m.p99.toFixed(1)} | ${rel(p.p99.value, m.p99)} | ${own.requests} | ${w.load.toFixed(1)} |`,
    );
    for (const s of pred.capacity?.services ?? [])
      console.log(
        `    ${s.service}: ${s.model} k ${s.k} x${s.instances} util ${s.utilisation.toFixed(2)} -> ${s.utilisationAfter.toFixed(2)} wait ${s.waitMs.toFixed(1)} ms fit err ${(100 * s.fitError).toFixed(1)}%${s.extrapolated ? ` extrapolated ${s.loadOverObserved.toFixed(2)}x` : ''}`,
      );
  }
}

/** Predicts again from a kept store (TRUTH_HOTROD_KEEP): the real API over the copy, read-only. */
async function replay(dir: string): Promise<void> {
  const windows = JSON.parse(readFileSync(join(dir, 'windows.json'), 'utf8')) as Window[];
  const store = openStore({ dataDir: join(dir, 'store'), readOnly: true });
  const api = await buildStoreApi(store);
  try {
    console.log(`\nHotROD: predicted again from the store kept in ${dir}`);
    await predictWindows(async (body) => {
      const res = await api.inject({
        method: 'POST',
        url: '/api/v1/whatif',
        payload: body as object,
      });
      return { status: res.statusCode, body: res.body };
    }, windows);
  } finally {
    await api.close();
    await store.close();
  }
}

export async function hotrodTruth(): Promise<void> {
  if (REPLAY) {
    await replay(REPLAY);
    return;
  }
  const skip = faultsSkipReason();
  if (skip) {
    console.log(`\nHotROD part skipped: ${skip}`);
    return;
  }
  console.log(
    `\nHotROD: recorded at ${BASE}/s, measured at ${RATES.join(', ')}/s, ${SECONDS} s windows`,
  );
  const before = new Set(readdirSync(tmpdir()));
  const cluster = await startCluster({ hotrod: hotrodPath(), tag: 'captruth' });
  try {
    const post: Post = async (body) =>
      JSON.parse(
        await cluster.topo.exec(
          cluster.topo.control,
          process.execPath,
          [
            '--input-type=module',
            '-e',
            POST_JSON,
            `http://${CONTROL_ADDRESS}:7070/api/v1/whatif`,
            JSON.stringify(body),
          ],
          300_000,
        ),
      ) as { status: number; body: string };
    const windows: Window[] = [];
    for (const rate of [BASE, ...RATES]) {
      const load = await cluster.startLoad(rate);
      await sleep(SETTLE_S * 1000);
      const fromMs = Date.now();
      await sleep(SECONDS * 1000);
      const toMs = Date.now();
      await load.stop();
      windows.push({ rate, fromMs, toMs, load: loadavg()[0] ?? 0 });
      console.log(`  ${rate}/s recorded (load average ${(loadavg()[0] ?? 0).toFixed(1)})`);
      // The last requests' spans reach the store, and the queue drains before the next rate.
      await sleep(5000);
    }
    await sleep(5000);
    await predictWindows(post, windows);
    if (KEEP) {
      // The cluster's store (a new tailscope-captruth-* directory), copied while it is idle.
      const dir = readdirSync(tmpdir()).find(
        (d) => d.startsWith('tailscope-captruth-') && !before.has(d),
      );
      if (dir) {
        mkdirSync(KEEP, { recursive: true });
        cpSync(join(tmpdir(), dir), join(KEEP, 'store'), { recursive: true });
        writeFileSync(join(KEEP, 'windows.json'), JSON.stringify(windows, null, 2));
        console.log(`store kept in ${KEEP} (TRUTH_HOTROD_REPLAY=${KEEP} predicts again)`);
      }
    }
  } finally {
    await cluster.stop();
  }
}
