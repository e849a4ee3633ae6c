import {
  collectDefaultMetrics,
  Counter,
  Gauge,
  Histogram,
  Registry,
  type CounterConfiguration,
} from 'prom-client';
import type { FastifyInstance } from 'fastify';
import { WRITER_FAILURES, type IngestHandle, type IngestObserver } from '../ingest';
import { selectEngineMemoryBytes, type Store } from '../store';

/**
 * Tailscope's own metrics, for GET /metrics (Prometheus text format; docs/operations.md lists
 * them). One Registry per server, never prom-client's global one, so several servers in one
 * process (the tests) keep their own counts.
 */
export class ServerMetrics implements IngestObserver {
  readonly registry = new Registry();
  private ingest: IngestHandle | undefined;
  private store: Store | undefined;

  private readonly requests = this.counter({
    name: 'tailscope_otlp_requests_total',
    help: 'OTLP export requests by protocol and outcome (accepted, or why the whole request was refused)',
    labelNames: ['protocol', 'outcome'],
  });
  private readonly received = this.counter({
    name: 'tailscope_spans_received_total',
    help: 'Spans decoded from OTLP requests, kept or not',
    labelNames: ['protocol'],
  });
  private readonly rejected = this.counter({
    name: 'tailscope_spans_rejected_total',
    help: 'Spans not kept: invalid_span (the decoder refused them) or queue_full',
    labelNames: ['protocol', 'reason'],
  });
  private readonly storedSpans = this.counter({
    name: 'tailscope_spans_stored_total',
    help: 'Spans inserted into the store (batches mix protocols: no protocol label)',
  });
  private readonly receivedPoints = this.counter({
    name: 'tailscope_metric_points_received_total',
    help: 'Metric data points decoded from OTLP metrics requests, kept or not',
    labelNames: ['protocol'],
  });
  private readonly rejectedPoints = this.counter({
    name: 'tailscope_metric_points_rejected_total',
    help: 'Metric data points not kept: invalid_point (the decoder refused them) or queue_full',
    labelNames: ['protocol', 'reason'],
  });
  private readonly storedPoints = this.counter({
    name: 'tailscope_metric_points_stored_total',
    help: 'Metric data points inserted into the otel_metrics_* tables',
  });
  private readonly writerFailures = this.counter({
    name: 'tailscope_ingest_writer_failures_total',
    help: 'Failed attempts of the ingest writer (inserts, batch-log and dead-letter writes), by reason: no_space, io_error, store_error',
    labelNames: ['reason'],
  });
  private readonly insertSeconds = new Histogram({
    name: 'tailscope_insert_duration_seconds',
    help: 'Duration of one batched insert into the store, by table',
    labelNames: ['table'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  private readonly httpSeconds = new Histogram({
    name: 'tailscope_http_request_duration_seconds',
    help: 'REST API and dashboard requests by route pattern, method and status',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  /**
   * `processMetrics`: prom-client's process and Node.js metrics too (RSS, event loop lag, GC). A
   * server wants them; an in-process API (reports, tests) would only add GC observers per build.
   */
  constructor(opts: { processMetrics?: boolean } = {}) {
    if (opts.processMetrics) collectDefaultMetrics({ register: this.registry });
    const registers = [this.registry];
    const ingestGauge = (name: string, help: string, read: (i: IngestHandle) => number) =>
      new Gauge({
        name,
        help,
        registers,
        collect: () => {
          if (this.ingest) gaugeOf(name, this.registry).set(read(this.ingest));
        },
      });
    ingestGauge('tailscope_write_queue_spans', 'Spans acknowledged, not yet in the store', (i) =>
      i.queuedSpans(),
    );
    ingestGauge('tailscope_write_queue_bytes', 'Bytes of the queued spans held in memory', (i) =>
      i.queuedBytes(),
    );
    ingestGauge(
      'tailscope_wal_replay_backlog_spans',
      'Spans in the write-ahead log still to replay after a restart',
      (i) => i.status().replayBacklogSpans,
    );
    ingestGauge(
      'tailscope_dead_letter_batches',
      'Requests the store refused for good, quarantined (since the data directory was made)',
      (i) => i.status().deadLetter.batches,
    );
    ingestGauge(
      'tailscope_dead_letter_spans',
      'Spans in those quarantined requests',
      (i) => i.status().deadLetter.spans,
    );
    const stuck = new Gauge({
      name: 'tailscope_ingest_writer_stuck',
      help: 'Whether the ingest writer cannot finish inserts (1) and why (reason: no_space, io_error, store_error, queue_stalled); OTLP answers 503 meanwhile',
      labelNames: ['reason'],
      registers,
      collect: () => {
        if (!this.ingest) return;
        const health = this.ingest.status().writer;
        const now = health.stuck ? (health.failure ?? 'queue_stalled') : undefined;
        for (const reason of [...WRITER_FAILURES, 'queue_stalled'])
          stuck.set({ reason }, reason === now ? 1 : 0);
      },
    });
    const wal = new Gauge({
      name: 'tailscope_wal_bytes',
      help: 'Bytes of write-ahead-log segments on disk',
      registers,
      collect: async () => {
        if (this.ingest) wal.set(await this.ingest.walBytes());
      },
    });
    const engine = new Gauge({
      name: 'tailscope_engine_memory_bytes',
      help: "ClickHouse's tracked memory (system.metrics MemoryTracking); the embedded engine's is also in this process's RSS",
      registers,
      collect: async () => {
        if (!this.store) return;
        // A busy store (the embedded engine runs one query at a time, an analysis may take
        // seconds) or an unreachable one keeps the last value rather than stalling the scrape.
        let timer: ReturnType<typeof setTimeout> | undefined;
        const bytes = await Promise.race([
          selectEngineMemoryBytes(this.store).catch(() => undefined),
          new Promise<undefined>((resolve) => {
            timer = setTimeout(() => {
              resolve(undefined);
            }, ENGINE_WAIT_MS);
          }),
        ]);
        clearTimeout(timer);
        if (bytes !== undefined) engine.set(bytes);
      },
    });
  }

  private counter(cfg: CounterConfiguration<string>): Counter {
    return new Counter({ ...cfg, registers: [this.registry] });
  }

  /** The ingest pipeline and store whose state the gauges read at each scrape. */
  watch(sources: { ingest?: IngestHandle; store?: Store }): void {
    if (sources.ingest) this.ingest = sources.ingest;
    if (sources.store) this.store = sources.store;
  }

  /** Times every request by its route pattern (bounded labels, never the raw URL). */
  instrument(app: FastifyInstance): void {
    const started = new WeakMap<object, number>();
    app.addHook('onRequest', (req, _reply, done) => {
      started.set(req, performance.now());
      done();
    });
    app.addHook('onResponse', (req, reply, done) => {
      const t0 = started.get(req);
      if (t0 !== undefined)
        this.httpSeconds.observe(
          {
            method: req.method,
            route: req.routeOptions.url ?? 'unmatched',
            status_code: String(reply.statusCode),
          },
          (performance.now() - t0) / 1000,
        );
      done();
    });
  }

  request(protocol: string, outcome: string): void {
    this.requests.inc({ protocol, outcome });
  }
  spansReceived(protocol: string, spans: number): void {
    this.received.inc({ protocol }, spans);
  }
  spansRejected(protocol: string, reason: string, spans: number): void {
    this.rejected.inc({ protocol, reason }, spans);
  }
  inserted(table: string, seconds: number): void {
    this.insertSeconds.observe({ table }, seconds);
  }
  stored(spans: number): void {
    this.storedSpans.inc(spans);
  }
  pointsReceived(protocol: string, points: number): void {
    this.receivedPoints.inc({ protocol }, points);
  }
  pointsRejected(protocol: string, reason: string, points: number): void {
    this.rejectedPoints.inc({ protocol, reason }, points);
  }
  pointsStored(points: number): void {
    this.storedPoints.inc(points);
  }
  writerFailed(failure: string): void {
    this.writerFailures.inc({ reason: failure });
  }
}

/** How long a scrape waits for the engine's memory figure. */
const ENGINE_WAIT_MS = 1000;

function gaugeOf(name: string, registry: Registry): Gauge {
  return registry.getSingleMetric(name) as Gauge;
}
