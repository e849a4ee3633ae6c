/**
 * The root service: `GET /fanout` calls one replica of every shard over HTTP and answers when all
 * have answered, under the configured tail-tolerance policy. Reports its counters to the
 * supervisor once a second.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { context, SpanKind } from '@opentelemetry/api';
import { getRPCMetadata, RPCType } from '@opentelemetry/core';
import { reportGcPauses } from '@tailscope/collectors';
import { alignAutogroupNice, onStop, readChildConfig, send } from './child-ipc';
import { FanoutRunner } from './fanout';
import { LeafClient } from './leaf-client';
import type { SupervisorMessage } from './messages';
import type { ProbationEpisode } from './probation';
import { startRuntimeMetrics } from './runtime-metrics';
import { HostTracers, installContext, instrumentHttp } from './telemetry';

const ROOT_HOST = 'root-01';
const config = readChildConfig('root');
alignAutogroupNice();
installContext();
const tracers = new HostTracers(
  config.otlpUrl,
  'demo-root',
  {
    'tailscope.demo.policy': config.policy,
    'process.pid': process.pid,
  },
  { recording: config.recording },
);
process.on('message', (msg: SupervisorMessage) => {
  if (msg.type === 'record') tracers.gate.start();
});
const tracer = tracers.add(ROOT_HOST, {});
const runtimeMetrics =
  config.metricsIntervalMs > 0
    ? startRuntimeMetrics({
        otlpUrl: config.otlpUrl,
        serviceName: 'demo-root',
        processAttributes: { 'tailscope.demo.policy': config.policy, 'process.pid': process.pid },
        hosts: [ROOT_HOST],
        intervalMs: config.metricsIntervalMs,
      })
    : null;
const http = instrumentHttp({ provider: tracers.router(ROOT_HOST), peerService: 'demo-leaf' });
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
const runner = new FanoutRunner(new LeafClient(http, agent), config);

/** Probation episodes become spans on the root, for the what-if simulator's ground truth. */
function recordEpisodes(episodes: ProbationEpisode[]): void {
  for (const e of episodes) {
    tracer
      .startSpan('probation', {
        kind: SpanKind.INTERNAL,
        root: true,
        startTime: e.fromMs,
        attributes: {
          'tailscope.probation.host': e.host,
          'tailscope.probation.p90_ms': Math.round(e.p90AtExclusionMs * 100) / 100,
          'tailscope.probation.threshold_ms': Math.round(e.thresholdMs * 100) / 100,
        },
      })
      .end(e.toMs);
  }
}

const server = http.createServer((req: IncomingMessage, res: ServerResponse) => {
  const meta = getRPCMetadata(context.active());
  if (meta?.type === RPCType.HTTP) meta.route = '/fanout';
  const url = new URL(req.url ?? '/', 'http://root');
  if (url.pathname !== '/fanout') {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('try GET /fanout');
    return;
  }
  const query = Number(url.searchParams.get('q') ?? Math.floor(Math.random() * 1e6));
  runner.run(query).then(
    () => {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    },
    (err: unknown) => {
      const message = err instanceof Error ? err.message : String(err);
      res.writeHead(502, { 'content-type': 'application/json' }).end(JSON.stringify({ message }));
    },
  );
});
server.keepAliveTimeout = 30_000;
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const addr = server.address();
const gcReporter = reportGcPauses(tracers.all(), { minDurationMs: 2 });

const ticker = setInterval(() => {
  recordEpisodes(runner.tick(Date.now()));
  send({ type: 'stats', stats: runner.stats });
}, 1000);

send({ type: 'root-ready', port: typeof addr === 'object' && addr ? addr.port : 0 });

onStop(async () => {
  clearInterval(ticker);
  gcReporter.stop();
  recordEpisodes(runner.probation?.openEpisodes(Date.now()) ?? []);
  send({ type: 'stats', stats: runner.stats });
  await new Promise<void>((resolve) => {
    server.close(() => {
      resolve();
    });
    server.closeIdleConnections();
  });
  agent.destroy();
  await Promise.all([tracers.shutdown(), runtimeMetrics?.stop()]);
});
