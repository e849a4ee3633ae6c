import { hostname } from 'node:os';
import { SpanKind, SpanStatusCode, type Span } from '@opentelemetry/api';
import { TracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import type { FastifyInstance } from 'fastify';

/**
 * Tailscope watching its own tail: with `--self-trace`, every API request becomes a SERVER span
 * of service `tailscope` sent to Tailscope's own OTLP endpoint, so the dashboard shows the API's
 * latency like any other service's. Only the API is traced, never the OTLP receivers (that would
 * feed back on itself).
 */
export interface SelfTracer {
  instrument(app: FastifyInstance): void;
  shutdown(): Promise<void>;
}

/** How to reach our own receiver when it asks for a token or speaks TLS. */
export interface SelfTraceAccess {
  /** One of TAILSCOPE_INGEST_TOKENS. */
  token?: string;
  /** Our own certificate: trusted as the only CA, for this one loopback connection. */
  cert?: Buffer;
}

export function startSelfTrace(otlpHttpUrl: string, access: SelfTraceAccess = {}): SelfTracer {
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'tailscope', 'host.name': hostname() }),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter({
          url: `${otlpHttpUrl}/v1/traces`,
          ...(access.token ? { headers: { Authorization: `Bearer ${access.token}` } } : {}),
          // The certificate names the public host, not 127.0.0.1: pin it instead of the name.
          ...(access.cert
            ? { httpAgentOptions: { ca: access.cert, checkServerIdentity: () => undefined } }
            : {}),
        }),
        scheduledDelayMillis: 1000,
      }),
    ],
  });
  const tracer = provider.getTracer('tailscope-api');
  const spans = new WeakMap<object, Span>();
  return {
    instrument(app) {
      app.addHook('onRequest', (req, _reply, done) => {
        const route = req.routeOptions.url ?? req.url.split('?')[0] ?? req.url;
        spans.set(
          req,
          tracer.startSpan(`${req.method} ${route}`, {
            kind: SpanKind.SERVER,
            attributes: {
              'http.request.method': req.method,
              'http.route': route,
              'url.path': req.url.split('?')[0] ?? '',
            },
          }),
        );
        done();
      });
      app.addHook('onResponse', (req, reply, done) => {
        const span = spans.get(req);
        if (span) {
          span.setAttribute('http.response.status_code', reply.statusCode);
          if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
          span.end();
        }
        done();
      });
    },
    shutdown: () => provider.shutdown(),
  };
}
