import { createRequire } from 'node:module';
import type { IncomingMessage, OutgoingHttpHeaders, RequestOptions } from 'node:http';
import {
  context,
  propagation,
  trace,
  type Attributes,
  type Context,
  type Span,
  type SpanOptions,
  type Tracer,
  type TracerProvider as ApiTracerProvider,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import {
  resourceFromAttributes,
  type DetectedResourceAttributes,
  type Resource,
} from '@opentelemetry/resources';
import { BatchSpanProcessor, ParentBasedSampler, TracerProvider } from '@opentelemetry/sdk-trace';
import { RecordingGate } from './recording-gate';

/**
 * OpenTelemetry for the demo's processes. A leaf process answers as several virtual hosts, and a
 * resource belongs to a TracerProvider, so each virtual host gets its own provider (own
 * `host.name`, `host.sharing_mode`); all of them share one batch processor and exporter, so one
 * OTLP request carries every host's spans. The standard HTTP instrumentation takes one provider:
 * it gets a router that starts each server span on the provider of the virtual host whose port
 * received the request (passed in by the start hook as a private attribute, removed again).
 */

/** Private: names the virtual host for the router; never exported on a span. */
const VHOST_ATTR = 'tailscope.internal.vhost';

/** Request marks, as headers on the wire and as attributes on both the CLIENT and SERVER span. */
export const MARK_HEADERS = {
  hedge: 'x-tailscope-hedge',
  shadow: 'x-tailscope-shadow',
  shard: 'x-tailscope-shard',
  arm: 'x-tailscope-arm',
} as const;

export function installContext(): void {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
}

function header(headers: OutgoingHttpHeaders | IncomingMessage['headers'], name: string) {
  const v = headers[name];
  return typeof v === 'string' ? v : undefined;
}

/**
 * `tailscope.hedge` = primary|backup, `tailscope.shadow` = true, `tailscope.shard` = k,
 * `tailscope.arm` = control|treatment.
 */
export function markAttributes(headers: OutgoingHttpHeaders | IncomingMessage['headers']) {
  const attrs: Attributes = {};
  const hedge = header(headers, MARK_HEADERS.hedge);
  if (hedge !== undefined) attrs['tailscope.hedge'] = hedge;
  if (header(headers, MARK_HEADERS.shadow) === 'true') attrs['tailscope.shadow'] = true;
  const shard = header(headers, MARK_HEADERS.shard);
  if (shard !== undefined) attrs['tailscope.shard'] = Number(shard);
  const arm = header(headers, MARK_HEADERS.arm);
  if (arm !== undefined) attrs['tailscope.arm'] = arm;
  return attrs;
}

/** The resource of one virtual host, for its spans and its metrics alike (they join on it). */
export function hostResource(
  serviceName: string,
  host: string,
  attributes: DetectedResourceAttributes,
): Resource {
  return resourceFromAttributes({
    ...attributes,
    'service.name': serviceName,
    'service.instance.id': host,
    'host.name': host,
  });
}

export class HostTracers {
  private readonly processor: BatchSpanProcessor;
  private readonly exporter: OTLPTraceExporter;
  private readonly tracers = new Map<string, Tracer>();
  private warmTimer: NodeJS.Timeout | undefined;
  /** Closed until the supervisor says to record (the warm-up); open from the start otherwise. */
  readonly gate: RecordingGate;

  constructor(
    otlpUrl: string,
    private readonly serviceName: string,
    private readonly processAttributes: DetectedResourceAttributes,
    opts: { recording?: boolean } = {},
  ) {
    this.gate = new RecordingGate(opts.recording ?? true);
    this.exporter = new OTLPTraceExporter({ url: otlpUrl });
    this.processor = new BatchSpanProcessor({
      exporter: this.exporter,
      scheduledDelayMillis: 1000,
      maxQueueSize: 16_384,
      maxExportBatchSize: 2048,
    });
    // While warming up nothing is exported, so the export path (serializer, HTTP connection,
    // the receiver) would start cold the moment recording starts: a burst of late fan-outs in the
    // recording's first seconds. An empty export every second keeps it warm and stores nothing.
    if (!this.gate.recording) {
      const warm = () => {
        if (this.gate.recording) return;
        this.exporter.export([], () => undefined);
        this.warmTimer = setTimeout(warm, 1000);
      };
      warm();
    }
  }

  /** A provider for one host; its spans carry `host.name` = host and `attributes`. */
  add(host: string, attributes: DetectedResourceAttributes): Tracer {
    const provider = new TracerProvider({
      resource: hostResource(this.serviceName, host, { ...this.processAttributes, ...attributes }),
      spanProcessors: [this.processor],
      sampler: new ParentBasedSampler({ root: this.gate }),
    });
    const tracer = provider.getTracer('@tailscope/demo');
    this.tracers.set(host, tracer);
    return tracer;
  }

  get(host: string): Tracer {
    const t = this.tracers.get(host);
    if (!t) throw new Error(`no tracer for host ${host}`);
    return t;
  }

  all(): Tracer[] {
    return [...this.tracers.values()];
  }

  /** The provider the HTTP instrumentation uses: routes by the private vhost attribute. */
  router(fallbackHost: string): ApiTracerProvider {
    const pick = (attrs: Attributes | undefined): Tracer => {
      const vhost = attrs?.[VHOST_ATTR];
      return (typeof vhost === 'string' && this.tracers.get(vhost)) || this.get(fallbackHost);
    };
    const strip = (options: SpanOptions | undefined): SpanOptions | undefined => {
      if (!options?.attributes || !(VHOST_ATTR in options.attributes)) return options;
      const { [VHOST_ATTR]: _drop, ...attributes } = options.attributes;
      return { ...options, attributes };
    };
    const tracer: Tracer = {
      startSpan: (name: string, options?: SpanOptions, ctx?: Context): Span =>
        pick(options?.attributes).startSpan(name, strip(options), ctx),
      startActiveSpan: (name: string, ...rest: unknown[]) => {
        const fn = rest.pop() as (span: Span) => unknown;
        const options = rest[0] as SpanOptions | undefined;
        const ctx = (rest[1] as Context | undefined) ?? context.active();
        const span = pick(options?.attributes).startSpan(name, strip(options), ctx);
        return context.with(trace.setSpan(ctx, span), () => fn(span));
      },
    };
    return { getTracer: () => tracer };
  }

  async shutdown(): Promise<void> {
    clearTimeout(this.warmTimer);
    await this.processor.forceFlush();
    await this.processor.shutdown();
  }
}

export interface InstrumentOptions {
  provider: ApiTracerProvider;
  /** For servers answering as virtual hosts: the host behind a local port. */
  hostOfPort?: (port: number) => string | undefined;
  /** `peer.service` on outgoing calls. */
  peerService?: string;
}

/**
 * Enables @opentelemetry/instrumentation-http and loads `http` through `require` so the patch
 * applies (tsx loads our ESM without the import-in-the-middle hook). Callers must then use the
 * `http` module object returned here (or its default import), not named imports bound earlier.
 */
export function instrumentHttp(opts: InstrumentOptions): typeof import('node:http') {
  const instrumentation = new HttpInstrumentation({
    startIncomingSpanHook: (req: IncomingMessage) => {
      const attrs = markAttributes(req.headers);
      const vhost = opts.hostOfPort?.(req.socket.localPort ?? -1);
      if (vhost !== undefined) attrs[VHOST_ATTR] = vhost;
      return attrs;
    },
    startOutgoingSpanHook: (req: RequestOptions) => {
      const headers = req.headers && !Array.isArray(req.headers) ? req.headers : {};
      const attrs = markAttributes(headers as OutgoingHttpHeaders);
      if (opts.peerService !== undefined) attrs['peer.service'] = opts.peerService;
      return attrs;
    },
    // The exporters' own requests must not become spans (each export would trace itself).
    ignoreOutgoingRequestHook: (req: RequestOptions) =>
      /\/v1\/(traces|metrics)/.test(req.path ?? ''),
  });
  instrumentation.setTracerProvider(opts.provider);
  instrumentation.enable();
  return createRequire(import.meta.url)('http') as typeof import('node:http');
}
