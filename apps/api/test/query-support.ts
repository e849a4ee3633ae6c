import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type SpanRecord } from '@tailscope/analysis';
import { randomFromSeed } from '@tailscope/analysis/testing';
import { loadSettings, type Env } from '../src/config';
import { serve, type Running } from '../src/server/serve';
import { insertSpans, T0_NS } from './analysis-support';

/**
 * `tailscope serve` on a fresh data directory and free ports (the real server: HTTP listeners,
 * ingest, embedded engine), for the query-side robustness tests. `env` sets TAILSCOPE_* knobs.
 */
export async function startServer(
  prefix: string,
  env: Env = {},
  dataDir?: string,
): Promise<{
  running: Running;
  base: string;
  dir: string;
  /** Stops the server, keeping its data directory (to start another on it). */
  close: () => Promise<void>;
  /** Stops the server and removes its data directory. */
  stop: () => Promise<void>;
}> {
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), `tailscope-${prefix}-`));
  const settings = loadSettings(env, {
    dataDir: dir,
    port: '0',
    otlpHttpPort: '0',
    otlpGrpcPort: '0',
  });
  // The query budget (TAILSCOPE_QUERY_*, TAILSCOPE_TRACE_*) is read from the environment when
  // the store opens: set for that moment only.
  const saved = Object.keys(env).map((k) => [k, process.env[k]] as const);
  Object.assign(process.env, env);
  let running: Running;
  try {
    running = await serve(settings);
  } finally {
    for (const [k, v] of saved) {
      if (v === undefined) Reflect.deleteProperty(process.env, k);
      else process.env[k] = v;
    }
  }
  return {
    running,
    base: running.urls.api,
    dir,
    close: () => running.close(),
    stop: async () => {
      await running.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');

/**
 * `requests` fan-outs of frontend/search to kv/get on `width` hosts (kv-0..), 20 ms apart from
 * T0; call latencies drawn from a seeded exponential, so every analysis route has data.
 */
export function fanoutSpans(requests: number, width = 4, seed = 7): SpanRecord[] {
  const rand = randomFromSeed(`fanouts-${seed}`);
  const out: SpanRecord[] = [];
  for (let q = 0; q < requests; q++) {
    const traceId = hex(q + 1, 32);
    const parentId = hex(q * 100 + 1, 16);
    const start = T0_NS + BigInt(q) * 20_000_000n;
    let end = 0;
    for (let h = 0; h < width; h++) {
      const ms = 1 - 2 * Math.log(1 - rand());
      end = Math.max(end, ms);
      out.push({
        traceId,
        spanId: hex(q * 100 + 2 + h, 16),
        parentSpanId: parentId,
        kind: 'Server',
        service: 'kv',
        name: 'get',
        startNs: start + 10_000n,
        durationNs: BigInt(Math.round(ms * 1e6)),
        resource: { 'service.name': 'kv', 'host.name': `kv-${h}` },
        attributes: {},
      });
    }
    out.push({
      traceId,
      spanId: parentId,
      parentSpanId: '',
      kind: 'Server',
      service: 'frontend',
      name: 'search',
      startNs: start,
      durationNs: BigInt(Math.round((end + 1) * 1e6)),
      resource: { 'service.name': 'frontend', 'host.name': 'fe-0' },
      attributes: {},
    });
  }
  return out;
}

export { insertSpans, T0_NS };
