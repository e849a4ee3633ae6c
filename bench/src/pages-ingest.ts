// For bench:pages: a steady OTLP/HTTP ingest beside the browser (generated spans stamped at the
// wall clock, posted as protobuf at a fixed rate), and one big trace for the trace page.
import { createGenerator, encodeOtlpProtobuf, presetSpec } from '@tailscope/tracegen';
import { apiClient } from '@tailscope/contracts';

export interface SteadyIngest {
  /** Spans the receiver accepted so far. */
  sent(): number;
  /** Requests refused or failed (429, 5xx, network). */
  refused(): number;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

/**
 * Posts `scenario` traffic (a tracegen preset, default `microservices`) to `otlpUrl` at
 * ~`spansPerSecond`: the preset's request rate is scaled so its spans per second of trace time
 * match the send rate, and its start is now, so the spans' timestamps follow the wall clock as a
 * live service's would.
 */
export function startSteadyIngest(
  otlpUrl: string,
  spansPerSecond: number,
  scenario = 'microservices',
): SteadyIngest {
  const probe = createGenerator(presetSpec(scenario), { requests: 1000, seed: 2 });
  const perRequest = probe.expectedSpans / 1000;
  const ratePerSecond = Math.max(1, spansPerSecond / perRequest);
  const t0 = Date.now();
  // An hour of traffic: more than any measurement; the loop stops when asked.
  const gen = createGenerator(presetSpec(scenario, { ratePerSecond }), {
    requests: Math.ceil(ratePerSecond * 3600),
    seed: 2,
    start: t0,
  });
  let accepted = 0;
  let failed = 0;
  const state = { stopped: false };
  const loop = (async () => {
    let planned = 0;
    for (const batch of gen.batches()) {
      if (state.stopped) break;
      const body = encodeOtlpProtobuf(batch);
      planned += batch.spanCount;
      // Paced by spans: this batch goes when the clock has reached its share of the rate.
      const due = t0 + (planned / spansPerSecond) * 1000;
      const wait = due - Date.now();
      if (wait > 0) await sleep(wait);
      try {
        const res = await fetch(otlpUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/x-protobuf' },
          body,
        });
        await res.arrayBuffer();
        if (res.ok) accepted += batch.spanCount;
        else failed++;
      } catch {
        failed++;
      }
    }
  })();
  return {
    sent: () => accepted,
    refused: () => failed,
    async stop() {
      state.stopped = true;
      await loop;
    },
  };
}

/** One trace of `n` spans: a root over 100 calls, each over its share of leaf spans (JSON). */
export function bigTrace(n: number, t0Ns: bigint): { traceId: string; body: string } {
  const traceId = 'b16b16b1600000000000000000000002';
  const hex = (i: number): string => i.toString(16).padStart(16, '0');
  const at = (us: number): string => String(t0Ns + BigInt(Math.round(us)) * 1000n);
  const spans: unknown[] = [];
  const add = (id: number, parent: number, name: string, fromUs: number, toUs: number) =>
    spans.push({
      traceId,
      spanId: hex(id),
      parentSpanId: parent === 0 ? '' : hex(parent),
      name,
      kind: parent === 0 ? 2 : 3,
      startTimeUnixNano: at(fromUs),
      endTimeUnixNano: at(toUs),
    });
  add(1, 0, 'GET /big', 0, 1_000_000);
  const calls = 100;
  const perCall = Math.ceil(Math.max(0, n - 1 - calls) / calls);
  for (let c = 0; c < calls; c++) {
    const from = c * 9_000;
    add(2 + c, 1, 'call', from, from + 8_000 + (c % 7) * 100);
    for (let l = 0; l < perCall; l++) {
      const id = 2 + calls + c * perCall + l;
      if (id > n) break;
      add(id, 2 + c, 'leaf', from + l * 70, from + l * 70 + 60);
    }
  }
  const resourceSpans = [
    {
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 'big' } }] },
      scopeSpans: [{ scope: { name: 'bench' }, spans }],
    },
  ];
  return { traceId, body: JSON.stringify({ resourceSpans }) };
}

/** Sends `big` to `otlpUrl` and waits until the API reads all of its spans. */
export async function sendBigTrace(
  base: string,
  otlpUrl: string,
  big: { traceId: string; body: string },
  spans: number,
): Promise<void> {
  const stored = (): Promise<number> =>
    apiClient(fetch, base)
      .call('trace', { params: { traceId: big.traceId } })
      .then(
        (t) => t.totalSpans,
        () => 0,
      );
  // A store measured before holds it already: sent again it would be stored twice.
  if ((await stored()) >= spans) return;
  const res = await fetch(otlpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: big.body,
  });
  if (!res.ok) throw new Error(`OTLP export of the big trace: ${res.status}`);
  for (let i = 0; i < 240; i++) {
    if ((await stored()) >= spans) return;
    await sleep(500);
  }
  throw new Error('the big trace did not reach the store in 120 s');
}
