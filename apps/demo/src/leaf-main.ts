/**
 * A leaf process: answers as several virtual hosts (one HTTP server and one TracerProvider per
 * host), each serving one shard of a toy search index. Its role adds a real cause of slowness:
 * GC pressure, a periodic compaction that blocks the event loop, or (placed by the supervisor
 * with taskset/nice) CPU co-tenancy with hogs.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { context } from '@opentelemetry/api';
import { getRPCMetadata, RPCType } from '@opentelemetry/core';
import { recordActivity, reportGcPauses } from '@tailscope/collectors';
import { alignAutogroupNice, onStop, readChildConfig, send } from './child-ipc';
import { buildIndex, compact, GarbageMaker, search } from './leaf-work';
import { LeafSharing } from './leaf-sharing';
import type { SlowHostPlan, SupervisorMessage } from './messages';
import { startRuntimeMetrics } from './runtime-metrics';
import { HostTracers, installContext, instrumentHttp } from './telemetry';

const config = readChildConfig('leaf');
alignAutogroupNice();
installContext();

const sharing = new LeafSharing(config);
const tracers = new HostTracers(
  config.otlpUrl,
  'demo-leaf',
  {
    ...sharing.attributes,
    'tailscope.demo.process': config.processName,
    'tailscope.demo.role': config.role,
    'process.pid': process.pid,
  },
  { recording: config.recording },
);
for (const host of config.hosts) tracers.add(host, {});
const runtimeMetrics =
  config.metricsIntervalMs > 0
    ? startRuntimeMetrics({
        otlpUrl: config.otlpUrl,
        serviceName: 'demo-leaf',
        processAttributes: {
          'tailscope.demo.process': config.processName,
          'tailscope.demo.role': config.role,
          'process.pid': process.pid,
        },
        hosts: config.hosts,
        intervalMs: config.metricsIntervalMs,
      })
    : null;
const hostOfPort = new Map<number, string>();
const http = instrumentHttp({
  provider: tracers.router(config.hosts[0] ?? 'unknown'),
  hostOfPort: (port) => hostOfPort.get(port),
});

const garbage = config.role === 'gc' ? new GarbageMaker(config.gcRetained) : null;

// The injected fault, when the supervisor sends one (its window starts when the load does).
let slow: SlowHostPlan | null = null;
process.on('message', (msg: SupervisorMessage) => {
  if (msg.type === 'slow') slow = msg.plan;
  else if (msg.type === 'record') tracers.gate.start();
});

function slowDelayMs(host: string, now: number): number {
  const s = slow;
  if (!s || s.host !== host || now < s.fromEpochMs || now >= s.toEpochMs) return 0;
  return s.delayMs * (0.5 + Math.random());
}

/** Waits `ms`, or less if the caller hangs up (a hedged loser being cancelled). */
function waitUnlessClosed(ms: number, req: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      req.off('close', done);
      resolve();
    }
    req.once('close', done);
  });
}

function handler(host: string, index: Float32Array) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const meta = getRPCMetadata(context.active());
    if (meta?.type === RPCType.HTTP) meta.route = '/shard';
    sharing.onRequest();
    const url = new URL(req.url ?? '/', 'http://leaf');
    const q = Number(url.searchParams.get('q') ?? '0');
    const delay = slowDelayMs(host, Date.now());
    const answer = () => {
      if (req.destroyed) return;
      const hit = search(index, q);
      const churned = garbage ? garbage.churn(config.gcAllocPerRequest) : 0;
      const body = JSON.stringify({ host, row: hit.row, score: hit.score, churned });
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    };
    if (delay > 0) void waitUnlessClosed(delay, req).then(answer);
    else answer();
  };
}

const servers: Server[] = [];
const endpoints: { host: string; port: number }[] = [];
for (const [i, host] of config.hosts.entries()) {
  const server = http.createServer(handler(host, buildIndex(1024, i + 1)));
  server.keepAliveTimeout = 30_000;
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const addr = server.address();
      resolve(typeof addr === 'object' && addr ? addr.port : 0);
    });
  });
  hostOfPort.set(port, host);
  servers.push(server);
  endpoints.push({ host, port });
}

// GC pauses stall every virtual host of this process: report them on each.
const gcReporter = reportGcPauses(tracers.all(), { minDurationMs: 2 });

let compactionTimer: NodeJS.Timeout | undefined;
if (config.role === 'compaction') {
  let seed = 12345;
  const jitter = () => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    return 0.5 + seed / 4294967296;
  };
  const schedule = () => {
    compactionTimer = setTimeout(runCompaction, config.compactionEveryMs * jitter());
  };
  const runCompaction = () => {
    const start = Date.now();
    const done = compact(config.compactionEntries, 8, seed);
    recordActivity(tracers.all(), 'compaction', start, Date.now(), {
      'compaction.entries': done.entries,
      'compaction.runs': 8,
    });
    schedule();
  };
  schedule();
}

send({ type: 'ready', hosts: endpoints });

onStop(async () => {
  sharing.settle('unknown');
  clearTimeout(compactionTimer);
  gcReporter.stop();
  await Promise.all(
    servers.map(
      (s) =>
        new Promise<void>((resolve) => {
          s.close(() => {
            resolve();
          });
          s.closeAllConnections();
        }),
    ),
  );
  await Promise.all([tracers.shutdown(), runtimeMetrics?.stop()]);
});
