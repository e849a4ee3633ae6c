/**
 * A small real service and its caller, for the CPU- and network-fault tests
 * (apps/cli/src/cpu-fault.int.test.ts, net-fault.int.test.ts; issue #27): both instrumented with
 * OpenTelemetry JS as the demo's processes are (spans through @opentelemetry/instrumentation-http,
 * runtime metrics through runtime-metrics.ts). OTEL_EXPORTER_OTLP_HEADERS (an ingest token) is
 * honoured by the SDK's exporters.
 *
 *   tsx cpu-service.ts service <otlp traces url> <work ms> [listen address]
 *     `cpu-svc` on host `svc-01`: GET /work spins <work ms> of CPU and answers; prints
 *     `port <n>` once listening (on 127.0.0.1 unless an address is given).
 *   tsx cpu-service.ts caller <otlp traces url> <service port> <requests per second> [address]
 *     `cpu-caller` on host `caller-01`: a SERVER span `tick` per request, calling GET /work
 *     (on 127.0.0.1 unless the service's address is given).
 *
 * SIGTERM flushes spans and metrics and exits.
 */
import { SpanKind } from '@opentelemetry/api';
import { startRuntimeMetrics } from '../runtime-metrics';
import { HostTracers, installContext, instrumentHttp } from '../telemetry';

const [role, otlpUrl = '', arg3 = '', arg4 = '', arg5 = ''] = process.argv.slice(2);
installContext();
const service = role === 'service' ? 'cpu-svc' : 'cpu-caller';
const host = role === 'service' ? 'svc-01' : 'caller-01';
const tracers = new HostTracers(otlpUrl, service, { 'process.pid': process.pid });
const tracer = tracers.add(host, {});
const http = instrumentHttp({ provider: tracers.router(host) });
const metrics = startRuntimeMetrics({
  otlpUrl,
  serviceName: service,
  processAttributes: { 'process.pid': process.pid },
  hosts: [host],
  intervalMs: 2000,
});

let stopTimers = (): void => undefined;

if (role === 'service') {
  const workMs = Number(arg3);
  let sink = 0;
  const server = http.createServer((_req, res) => {
    const end = performance.now() + workMs;
    while (performance.now() < end) sink += Math.sqrt(sink + 1);
    res.end(String(sink > 0));
  });
  server.listen(0, arg4 || '127.0.0.1', () => {
    const addr = server.address();
    process.stdout.write(`port ${typeof addr === 'object' && addr ? addr.port : 0}\n`);
  });
  stopTimers = () => {
    server.close();
    server.closeAllConnections();
  };
} else if (role === 'caller') {
  const port = Number(arg3);
  const address = arg5 || '127.0.0.1';
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const tick = (): void => {
    tracer.startActiveSpan('tick', { kind: SpanKind.SERVER }, (span) => {
      const req = http.get({ host: address, port, path: '/work', agent }, (res) => {
        res.resume();
        res.once('end', () => {
          span.end();
        });
      });
      req.once('error', () => {
        span.end();
      });
    });
  };
  const timer = setInterval(tick, 1000 / Number(arg4));
  stopTimers = () => {
    clearInterval(timer);
    agent.destroy();
  };
} else {
  throw new Error(`cpu-service: role must be service or caller, got '${String(role)}'`);
}

process.once('SIGTERM', () => {
  stopTimers();
  void Promise.all([tracers.shutdown(), metrics.stop()]).finally(() => process.exit(0));
});
