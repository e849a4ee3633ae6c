import { hostname } from 'node:os';
import type { Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';

/** `http://host:4318` or `http://host:4318/v1/traces` -> the traces endpoint. */
export function tracesEndpoint(otlp: string): string {
  let url: URL;
  try {
    url = new URL(otlp);
  } catch {
    throw new Error(`--otlp must be an http(s) URL, got ${JSON.stringify(otlp)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`--otlp must be an http(s) URL, got ${JSON.stringify(otlp)}`);
  }
  if (!url.pathname.endsWith('/v1/traces')) {
    url.pathname = `${url.pathname.replace(/\/$/, '')}/v1/traces`;
  }
  return url.toString();
}

export interface HostTelemetryOptions {
  /** OTLP/HTTP base URL or traces endpoint (protobuf). */
  otlp: string;
  serviceName: string;
  /** Default: os.hostname(). */
  hostName?: string;
  /** More resource attributes, e.g. from sharingResourceAttributes(). */
  attributes?: Record<string, string | number | boolean>;
}

export interface HostTelemetry {
  tracer: Tracer;
  /** Exports what is pending and stops. */
  shutdown(): Promise<void>;
}

/** A tracer whose spans carry this host's resource and go to an OTLP/HTTP endpoint. */
export function hostTelemetry(opts: HostTelemetryOptions): HostTelemetry {
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      'service.name': opts.serviceName,
      'host.name': opts.hostName ?? hostname(),
      ...opts.attributes,
    }),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter({ url: tracesEndpoint(opts.otlp) }),
        scheduledDelayMillis: 1000,
      }),
    ],
  });
  return {
    tracer: provider.getTracer('@tailscope/collectors'),
    shutdown: () => provider.shutdown(),
  };
}
