// npm run bench:capacity-drag — one drag of the /capacity page's traffic control in real
// Chromium (issue 29: under 100 ms per update while dragging), with where each update's time
// went. The tracegen `microservices` preset (SPANS spans) in an embedded store, a `tailscope
// serve` child, the built dashboard; the control is dragged with the pointer down, a step every
// STEP_MS, as a person does. Per preview shown:
//
//   wait     the input until its request left (the page keeps one request in flight)
//   gate     the server's time before the handler (admission, parsing; Server-Timing)
//   pool     the analysis pool's queue and thread (Server-Timing)
//   compute  the thread's own work on the job (Server-Timing)
//   net      the request's time less the handler's (transfer, serialization)
//   render   the answer's arrival until the frame that shows it (JSON, React, layout)
//
// and a Chromium CPU profile of the page during the drag (PROFILE=1): its busiest functions.
// Prints medians and the worst; not a test. Run under the machine lock.
//
// env: SPANS (default 60000: about 3,000 requests, as e2e/capacity.test.ts), STEPS (40),
// STEP_MS (40), DATA_DIR, PROFILE (1).
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import type { CDPSession } from 'playwright-core';
import { dataDirFor, freePort, loadPreset, startServer } from './analysis-support';
import { launch } from './pages-browser';

const SPANS = Number(process.env.SPANS ?? 60_000);
const STEPS = Number(process.env.STEPS ?? 40);
const STEP_MS = Number(process.env.STEP_MS ?? 40);
const PROFILE = process.env.PROFILE !== '0';
const WEB = resolve(import.meta.dirname, '../../apps/web');

interface Shown {
  updateMs: number;
  quality: string;
  askedAt: number;
  shownAt: number;
}
interface Resource {
  startTime: number;
  responseStart: number;
  responseEnd: number;
  serverTiming: { name: string; duration: number }[];
}

function build(): void {
  const index = join(WEB, 'dist', 'index.html');
  if (existsSync(index) && process.env.REBUILD !== '1') {
    console.log(`dashboard: ${index} (built ${statSync(index).mtime.toISOString()})`);
    return;
  }
  const r = spawnSync(join(WEB, '../../node_modules/.bin/vite'), ['build', '--logLevel', 'warn'], {
    cwd: WEB,
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'production' },
  });
  if (r.status !== 0) throw new Error('vite build failed');
}

const median = (xs: number[]): number =>
  xs.length === 0 ? NaN : ([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN);
const max = (xs: number[]): number => (xs.length === 0 ? NaN : Math.max(...xs));
const f0 = (x: number): string => (Number.isFinite(x) ? x.toFixed(0) : '-');

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

/** The profile's busiest functions by self time. */
function topFunctions(p: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }) {
  const self = new Map<number, number>();
  p.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)));
  const byName = new Map<string, number>();
  let total = 0;
  for (const n of p.nodes) {
    const us = self.get(n.id) ?? 0;
    total += us;
    const file = n.callFrame.url.split('/').pop() ?? '';
    const name = `${n.callFrame.functionName || '(anonymous)'} ${file}`;
    byName.set(name, (byName.get(name) ?? 0) + us);
  }
  return { total, top: [...byName.entries()].sort((a, b) => b[1] - a[1]).slice(0, 15) };
}

async function main(): Promise<void> {
  build();
  const dataDir = dataDirFor('microservices', SPANS, '-capacity-drag');
  const op = await loadPreset({ scenario: 'microservices', spans: SPANS, dataDir, fresh: false });
  const port = await freePort();
  const server = await startServer(port, dataDir);
  const browser = await launch();
  try {
    const page = await browser.newPage();
    await page.setViewportSize({ width: 1280, height: 1000 });
    // Strings, not functions: this package is typed without the DOM.
    await page.addInitScript({
      content: `window.__res = [];
        new PerformanceObserver((l) => {
          for (const e of l.getEntries())
            if (e.name.includes('/api/v1/whatif'))
              window.__res.push({
                startTime: e.startTime,
                responseStart: e.responseStart,
                responseEnd: e.responseEnd,
                serverTiming: e.serverTiming.map((s) => ({ name: s.name, duration: s.duration })),
              });
        }).observe({ type: 'resource', buffered: true });`,
    });
    const q = new URLSearchParams({
      from: String(op.fromMs),
      to: String(op.toMs),
      leafService: op.leafService,
      leafOperation: op.leafOperation,
      load: '1.5',
    });
    const t0 = performance.now();
    await page.goto(`http://127.0.0.1:${port}/capacity?${q.toString()}`);
    await page
      .locator('[data-testid="capacity-headline"][data-quality="full"]')
      .waitFor({ timeout: 300_000 });
    console.log(
      `first full answer on screen ${f0(performance.now() - t0)} ms after navigation (cold: read and fit)`,
    );
    // One preview before the drag: the preview's sample of the fit is made once (not a drag's).
    const slider = page.getByTestId('capacity-factor');
    await slider.focus();
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(
      "(window.__tailscopeCapacity ?? []).some((t) => t.quality === 'preview')",
      undefined,
      { timeout: 120_000 },
    );
    await page.waitForTimeout(1500);
    await page.evaluate('window.__tailscopeCapacity = []; window.__res = [];');

    let cdp: CDPSession | undefined;
    if (PROFILE) {
      cdp = await page.context().newCDPSession(page);
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
      await cdp.send('Profiler.start');
    }
    const box = await slider.boundingBox();
    if (!box) throw new Error('no traffic control');
    const y = box.y + box.height / 2;
    let x = box.x + ((1.55 - 0.25) / (4 - 0.25)) * box.width;
    await page.mouse.move(x, y);
    await page.mouse.down();
    for (let i = 0; i < STEPS; i++) {
      x += (0.35 * box.width) / STEPS;
      await page.mouse.move(x, y);
      await page.waitForTimeout(STEP_MS);
    }
    await page.waitForTimeout(300);
    const profile = cdp
      ? ((await cdp.send('Profiler.stop')) as {
          profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
        })
      : undefined;
    await page.mouse.up();
    await page.waitForTimeout(3000);

    const shown = await page.evaluate<Shown[]>('window.__tailscopeCapacity');
    const res = await page.evaluate<Resource[]>('window.__res');
    const rows: Record<string, number>[] = [];
    for (const s of shown.filter((x) => x.quality === 'preview')) {
      // The request of this answer: the last to end before it was shown, started after its input.
      const r = res
        .filter((e) => e.startTime >= s.askedAt - 1 && e.responseEnd <= s.shownAt + 1)
        .sort((a, b) => b.responseEnd - a.responseEnd)[0];
      if (!r) continue;
      const st = (n: string) => r.serverTiming.find((t) => t.name === n)?.duration ?? NaN;
      const handler = st('answer');
      rows.push({
        update: s.updateMs,
        wait: r.startTime - s.askedAt,
        gate: st('gate'),
        pool: st('pool'),
        compute: st('compute'),
        net: r.responseEnd - r.startTime - st('gate') - handler,
        render: s.shownAt - r.responseEnd,
      });
    }
    const cols = ['update', 'wait', 'gate', 'pool', 'compute', 'net', 'render'];
    console.log(
      `\ndrag: ${STEPS} steps ${STEP_MS} ms apart over x1.55-x2.9; ${rows.length} previews shown (${shown.length} answers), ${op.leafService}/${op.leafOperation}, ${SPANS} spans; load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    console.log(`| ms | ${cols.join(' | ')} |`);
    console.log(`| --- | ${cols.map(() => '---').join(' | ')} |`);
    console.log(
      `| median | ${cols.map((c) => f0(median(rows.map((r) => r[c] ?? NaN)))).join(' | ')} |`,
    );
    console.log(
      `| worst | ${cols.map((c) => f0(max(rows.map((r) => r[c] ?? NaN)))).join(' | ')} |`,
    );
    console.log(
      `each: ${rows.map((r) => `${f0(r.update ?? NaN)} (${f0(r.wait ?? NaN)}+${f0(r.gate ?? NaN)}+${f0(r.pool ?? NaN)}[${f0(r.compute ?? NaN)}]+${f0(r.net ?? NaN)}+${f0(r.render ?? NaN)})`).join(', ')}`,
    );
    if (profile) {
      const { total, top } = topFunctions(profile.profile);
      console.log(`\npage CPU profile of the drag: ${(total / 1000).toFixed(0)} ms sampled`);
      for (const [name, us] of top)
        console.log(`  ${(us / 1000).toFixed(1).padStart(7)} ms  ${name}`);
    }
  } finally {
    await browser.close();
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
  }
}

await main();
