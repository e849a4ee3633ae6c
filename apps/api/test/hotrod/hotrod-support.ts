import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { StatsResponse, TraceResponse } from '@tailscope/contracts';
import { buildHotrod, findHotrod, realtimePrefix } from './hotrod-bin';
import { Netns, type NsProcess } from './netns';

/**
 * The real-client harness of issue #12: the real `tailscope serve` (the CLI) and Jaeger's HotROD
 * (`hotrod all -x otlp`) inside one loopback-only network namespace, load sent to HotROD's
 * frontend from inside it, and Tailscope's REST API read from inside it.
 */

const CLI = resolve(import.meta.dirname, '../../../cli/bin/tailscope.js');
/** Inside a fresh namespace every port is free; Tailscope moves off 8080, HotROD's frontend. */
export const PORTS = { api: 7070, otlpHttp: 4318, otlpGrpc: 4317, frontend: 8080 } as const;
const API = `http://127.0.0.1:${String(PORTS.api)}`;
const FRONTEND = `http://127.0.0.1:${String(PORTS.frontend)}`;
/** HotROD's defaults: frontend, customer, driver (gRPC), route. */
const HOTROD_PORTS = [PORTS.frontend, 8081, 8082, 8083];
/** Warm-up dispatches: not sampled (flags 00), so HotROD records no spans for them. */
export const WARMUP_TRACE_ID = '7a11c0de000000000000000000000001';
const WARMUP_TRACEPARENT = `00-${WARMUP_TRACE_ID}-7a11c0de00000001-00`;
/** HotROD's four customers. */
export const CUSTOMERS = [123, 392, 731, 567] as const;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Fetches URLs from inside the namespace (argv: a JSON array of URLs) and prints a JSON array of
 * { status, body }; a refused connection is status 0.
 */
const FETCH_MANY = `
const urls = JSON.parse(process.argv[1]);
const out = await Promise.all(urls.map(async (u) => {
  try { const r = await fetch(u); return { status: r.status, body: await r.text() }; }
  catch (e) { return { status: 0, body: String(e) }; }
}));
process.stdout.write(JSON.stringify(out));
`;

/** POSTs a JSON body (argv: URL, body) from inside the namespace; prints { status, body }. */
const POST_JSON = `
const [url, body] = process.argv.slice(1);
const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
process.stdout.write(JSON.stringify({ status: r.status, body: await r.text() }));
`;

/**
 * Waits until HotROD's four services accept connections and a dispatch succeeds, then sends `requests`
 * GET /dispatch?customer=ID with at most `concurrency` in flight (customers in turn) and prints
 * the statuses as JSON.
 */
const LOAD = `
import { connect } from 'node:net';
const [base, n, conc, ids, ports] = [process.argv[1], Number(process.argv[2]), Number(process.argv[3]), JSON.parse(process.argv[4]), JSON.parse(process.argv[5])];
const listening = (port) => new Promise((ok) => {
  const s = connect(port, '127.0.0.1', () => { s.destroy(); ok(true); });
  s.on('error', () => ok(false));
});
const until = Date.now() + 30000;
for (;;) {
  const up = await Promise.all(ports.map(listening));
  if (up.every(Boolean)) break;
  if (Date.now() > until) { console.error('hotrod not ready: ' + JSON.stringify(up)); process.exit(2); }
  await new Promise((r) => setTimeout(r, 100));
}
// The frontend's gRPC client may have dialled the driver before it listened and then fail fast
// for a while: warm up until a dispatch succeeds, unsampled (no spans) under a known trace id.
for (;;) {
  const r = await fetch(base + '/dispatch?customer=' + ids[0], { headers: { traceparent: ${JSON.stringify(WARMUP_TRACEPARENT)} } });
  await r.text();
  if (r.ok) break;
  if (Date.now() > until) { console.error('hotrod dispatch keeps failing: ' + r.status); process.exit(2); }
  await new Promise((r) => setTimeout(r, 200));
}
let next = 0;
const statuses = [];
const worker = async () => {
  while (next < n) {
    const i = next++;
    const r = await fetch(base + '/dispatch?customer=' + ids[i % ids.length]);
    await r.text();
    statuses.push(r.status);
  }
};
await Promise.all(Array.from({ length: conc }, worker));
process.stdout.write(JSON.stringify(statuses));
`;

export interface Harness {
  ns: Netns;
  tailscope: NsProcess;
  /** Starts `hotrod all -x otlp` (with `-W workers` when given), waits for nothing. */
  startHotrod: (workers?: number) => NsProcess;
  /** HotROD runs at real-time priority (realtimePrefix): the machine's load does not stall it. */
  realtime: boolean;
  /** Sends the dispatch load from inside the namespace; resolves to the HTTP statuses. */
  dispatch: (requests: number, concurrency: number) => Promise<number[]>;
  /** GETs Tailscope API paths from inside the namespace. */
  api: (paths: string[]) => Promise<{ status: number; body: string }[]>;
  /** POSTs a JSON body to a Tailscope API path from inside the namespace. */
  post: (path: string, body: unknown) => Promise<{ status: number; body: string }>;
  stats: () => Promise<StatsResponse>;
  /** Polls until every trace is stored and `complete` holds for it; returns them in order. */
  waitForTraces: (
    traceIds: string[],
    complete: (t: TraceResponse) => boolean,
    timeoutMs?: number,
  ) => Promise<TraceResponse[]>;
  stop: () => Promise<void>;
}

/** Trace ids of the /dispatch requests HotROD's frontend logged (its log carries trace_id). */
export function dispatchTraceIds(hotrodOutput: string): string[] {
  const ids: string[] = [];
  for (const line of hotrodOutput.split('\n')) {
    if (!line.includes('HTTP request received') || !line.includes('"url": "/dispatch')) continue;
    const id = /"trace_id": "([0-9a-f]{32})"/.exec(line)?.[1];
    if (id && id !== WARMUP_TRACE_ID && !ids.includes(id)) ids.push(id);
  }
  return ids;
}

/** Makes sure hotrod exists (building it with `go` if need be): its path. */
export function hotrodBinary(): string {
  const bin = findHotrod() ?? buildHotrod();
  if (!bin) throw new Error('hotrod is neither installed nor buildable (see hotrodSkipReason)');
  return bin;
}

/** Creates the namespace and starts Tailscope in it; resolves once its API answers. */
export async function startHarness(prefix = 'hotrod'): Promise<Harness> {
  const hotrod = hotrodBinary();
  const realtime = realtimePrefix();
  const dataDir = mkdtempSync(join(tmpdir(), `tailscope-${prefix}-`));
  const ns = await Netns.create(prefix);
  const api = async (paths: string[]) =>
    JSON.parse(
      await ns.exec(process.execPath, [
        '--input-type=module',
        '-e',
        FETCH_MANY,
        JSON.stringify(paths.map((p) => API + p)),
      ]),
    ) as { status: number; body: string }[];
  const stop = async () => {
    await ns.delete();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const tailscope = ns.spawn(
      process.execPath,
      [
        CLI,
        'serve',
        '--data-dir',
        dataDir,
        '--port',
        String(PORTS.api),
        '--otlp-http-port',
        String(PORTS.otlpHttp),
        '--otlp-grpc-port',
        String(PORTS.otlpGrpc),
      ],
      { TAILSCOPE_LOG_LEVEL: 'warn' },
    );
    const until = Date.now() + 60_000;
    for (;;) {
      const [res] = await api(['/api/v1/stats']);
      if (res?.status === 200) break;
      if (tailscope.child.exitCode !== null || Date.now() > until)
        throw new Error(`tailscope did not come up: ${tailscope.output()}`);
      await sleep(250);
    }
    return {
      ns,
      tailscope,
      api,
      post: async (path, body) =>
        JSON.parse(
          await ns.exec(process.execPath, [
            '--input-type=module',
            '-e',
            POST_JSON,
            API + path,
            JSON.stringify(body),
          ]),
        ) as { status: number; body: string },
      stop,
      realtime: realtime.length > 0,
      startHotrod: (workers) => {
        const [cmd = hotrod, ...args] = [
          ...realtime,
          hotrod,
          'all',
          '-x',
          'otlp',
          ...(workers === undefined ? [] : ['-W', String(workers)]),
        ];
        return ns.spawn(
          cmd,
          args,
          {
            OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${String(PORTS.otlpHttp)}`,
            // The batch exporter's flush interval (5 s by default), so the test waits less.
            OTEL_BSP_SCHEDULE_DELAY: '500',
          },
          dataDir,
        );
      },
      dispatch: async (requests, concurrency) =>
        JSON.parse(
          await ns.exec(
            process.execPath,
            [
              '--input-type=module',
              '-e',
              LOAD,
              FRONTEND,
              String(requests),
              String(concurrency),
              JSON.stringify(CUSTOMERS),
              JSON.stringify(HOTROD_PORTS),
            ],
            120_000,
          ),
        ) as number[],
      stats: async () => {
        const [res] = await api(['/api/v1/stats']);
        if (res?.status !== 200) throw new Error(`stats answered ${String(res?.status)}`);
        return JSON.parse(res.body) as StatsResponse;
      },
      waitForTraces: async (traceIds, complete, timeoutMs = 45_000) => {
        const done = new Map<string, TraceResponse>();
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const pending = traceIds.filter((id) => !done.has(id));
          const answers = await api(pending.map((id) => `/api/v1/traces/${id}`));
          // What the last round answered, for the failure's message: statuses and span counts.
          const seen = new Map<string, number>();
          answers.forEach((res, i) => {
            const id = pending[i];
            const trace = res.status === 200 ? (JSON.parse(res.body) as TraceResponse) : undefined;
            const key = trace ? `200 with ${String(trace.spans.length)} spans` : String(res.status);
            seen.set(key, (seen.get(key) ?? 0) + 1);
            if (trace === undefined || id === undefined) return;
            if (complete(trace)) done.set(id, trace);
          });
          if (done.size === traceIds.length) break;
          if (Date.now() > deadline)
            throw new Error(
              `${String(traceIds.length - done.size)} of ${String(traceIds.length)} traces incomplete (last round: ${[...seen].map(([k, n]) => `${k} x${String(n)}`).join(', ')})`,
            );
          await sleep(500);
        }
        return traceIds.map((id) => done.get(id)).filter((t) => t !== undefined);
      },
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
