// The dashboard when a store holds calls but no fan-out (#12): first, with nothing stored, it
// names the OTLP address the server really listens on (an ephemeral port here, not 4318); then,
// with traces whose repeated calls are a sequential loop (none overlap, as in the fault-injection
// benchmarks), the Fanouts page says why there is none, in the server's words when it gives
// them, and shows the edges table (or says the server has no /api/v1/edges yet).
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import {
  artifactPath,
  CHROMIUM,
  ensureBuilt,
  launchBrowser,
  startServer,
  type TestServer,
} from './harness';
import { newPage } from './page-tools';

const started: { server?: TestServer; browser?: Browser } = {};
function server(): TestServer {
  if (!started.server) throw new Error('the server did not start');
  return started.server;
}
function browser(): Browser {
  if (!started.browser) throw new Error('the browser did not start');
  return started.browser;
}

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
const attr = (key: string, value: string) => ({ key, value: { stringValue: value } });

/** OTLP/JSON: `requests` traces, each a root SERVER span and a loop of 5 calls, one at a time. */
function sequentialTraces(requests: number, startMs: number): string {
  const front: unknown[] = [];
  const items: unknown[] = [];
  for (let r = 0; r < requests; r++) {
    const traceId = hex(r + 1, 32);
    const t0 = BigInt(startMs + r * 100) * 1_000_000n;
    let t = t0 + 100_000n;
    const rootId = hex(r * 100 + 1, 16);
    for (let c = 0; c < 5; c++) {
      const clientId = hex(r * 100 + 2 + 2 * c, 16);
      const end = t + 2_000_000n;
      front.push({
        traceId,
        spanId: clientId,
        parentSpanId: rootId,
        name: 'GET /item',
        kind: 3,
        startTimeUnixNano: String(t),
        endTimeUnixNano: String(end),
        attributes: [attr('peer.service', 'items'), attr('server.address', 'items-00')],
      });
      items.push({
        traceId,
        spanId: hex(r * 100 + 3 + 2 * c, 16),
        parentSpanId: clientId,
        name: 'GET /item',
        kind: 2,
        startTimeUnixNano: String(t + 100_000n),
        endTimeUnixNano: String(end - 100_000n),
      });
      t = end + 50_000n; // the next call starts after this one ended
    }
    front.push({
      traceId,
      spanId: rootId,
      name: 'GET /list',
      kind: 2,
      startTimeUnixNano: String(t0),
      endTimeUnixNano: String(t + 100_000n),
    });
  }
  const resource = (service: string) => ({
    attributes: [attr('service.name', service), attr('host.name', `${service}-00`)],
  });
  return JSON.stringify({
    resourceSpans: [
      { resource: resource('shop'), scopeSpans: [{ spans: front }] },
      { resource: resource('items'), scopeSpans: [{ spans: items }] },
    ],
  });
}

const haveBrowser = existsSync(CHROMIUM);

describe.skipIf(!haveBrowser && !process.env.CI)('dashboard without fan-outs', () => {
  beforeAll(async () => {
    ensureBuilt();
    started.server = await startServer();
    started.browser = await launchBrowser();
  });

  afterAll(async () => {
    await started.browser?.close();
    await started.server?.close();
  });

  it('with an empty store, shows the OTLP addresses the server listens on', async () => {
    const page = await newPage(browser());
    await page.goto(`${server().url}/`);
    const text = await page.getByTestId('otlp-addresses').innerText();
    expect(text).toContain(`${server().otlpHttp}/v1/traces`);
    expect(server().otlpHttp).not.toMatch(/:4318$/);
    await page.close();
  });

  it('with only sequential calls, says why there is no fan-out and shows the edges', async () => {
    const res = await fetch(`${server().otlpHttp}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: sequentialTraces(60, Date.now() - 1_800_000),
    });
    expect(res.status).toBe(200);
    await server().running.ingest.flush();

    // What the server itself says, to compare the page with.
    const q = `from=${Date.now() - 7_200_000}&to=${Date.now()}`;
    const answer = (await (await fetch(`${server().url}/api/v1/fanouts?${q}`)).json()) as {
      fanouts: unknown[];
      hint?: string;
    };
    expect(answer.fanouts).toEqual([]);
    const edges = await fetch(`${server().url}/api/v1/edges?${q}`);

    const page = await newPage(browser());
    await page.goto(`${server().url}/fanouts?range=all`);
    const hint = page.getByTestId('no-fanouts-hint');
    await hint.waitFor({ timeout: 20_000 });
    // The server's reason when it gives one (#12), else what a fan-out needs.
    await expect(hint.innerText()).resolves.toContain(
      answer.hint ?? 'two or more overlapping calls',
    );
    if (edges.status === 404) {
      await page.getByTestId('edges-unavailable').waitFor({ timeout: 20_000 });
    } else {
      const table = page.getByTestId('edges-table');
      await table.waitFor({ timeout: 20_000 });
      const row = await table.locator('tbody tr').first().innerText();
      expect(row).toContain('items GET /item');
      expect(row).toContain('sequential loop');
    }
    await page.screenshot({ path: artifactPath('no-fanouts.png'), fullPage: true });
    await page.close();
  });

  it('a pool answer shows its size, queue wait and the queueing verdict', async () => {
    // The fan-out answer of #12 for HotROD's route pool, shaped as the contract says; the rest
    // of the page talks to the real server.
    const q = (p50: number, p99: number) => ({ p50, p95: p99 * 0.9, p99, p999: p99 * 1.2 });
    const pool = {
      parentService: 'frontend',
      parentOperation: 'HTTP GET /dispatch',
      leafService: 'route',
      leafOperation: 'HTTP GET /route',
      requests: 500,
      width: { p50: 10, max: 10 },
      table1: {
        oneLeaf: q(12, 40),
        p95Leaves: q(50, 90),
        allLeaves: q(55, 95),
        slowest5pctShareOfP99: 0.3,
      },
      amplification: {
        thresholdMs: 60,
        observedTailProbability: 0.4,
        predictedTailProbability: 0.1,
        verdict: 'queueing',
      },
      curve: [],
      structure: 'pool',
      concurrency: { p50: 3, max: 3 },
      poolSize: 3,
      queueWaitMs: q(18, 45),
    };
    const page = await newPage(browser());
    await page.route('**/api/v1/fanouts*', (r) =>
      r.fulfill({ json: { from: 0, to: Date.now(), fanouts: [pool] } }),
    );
    await page.goto(`${server().url}/fanouts?range=all`);
    const verdict = page.getByTestId('verdict');
    await verdict.waitFor({ timeout: 20_000 });
    const text = await verdict.innerText();
    expect(text).toContain('Queueing for workers');
    expect(text).toContain('Waiting for a worker, not slow calls, makes requests slow');
    expect(text).toContain('hedging will not help');
    await expect(page.getByTestId('structure').innerText()).resolves.toContain(
      'go through 3 workers',
    );
    const structure = await page.getByTestId('structure-table').innerText();
    expect(structure).toContain('pool of 3');
    expect(structure).toContain('Queue wait 99%ile');
    expect(structure).toContain('45 ms');
    await page.screenshot({ path: artifactPath('fanouts-pool.png'), fullPage: true });
    await page.close();
  });
});
