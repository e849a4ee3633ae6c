import type { FastifyInstance } from 'fastify';
import { loadSettings, type Settings } from '../config';
import { openStore, migrate, type Store } from '../store';
import { startIngest, type IngestHandle, type IngestTuning } from '../ingest';
import { buildApi } from './app';
import { startSelfTrace } from './self-trace';
import { startFanoutMaterializer } from '../store/fanouts-cache';

export interface Running {
  settings: Settings;
  store: Store;
  api: FastifyInstance;
  ingest: IngestHandle;
  /** Bound addresses (ports resolved when 0 was asked for). */
  urls: { api: string; otlpHttp: string; otlpGrpc: string };
  close(): Promise<void>;
}

/** Where to reach a listener bound to `host` from this process. */
function loopback(host: string): string {
  return host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
}

export interface ServeOptions {
  /** Print startup lines and request logs. */
  log?: boolean;
  /** Ingest knobs for tests (docs/ingest.md). */
  ingestTuning?: Partial<IngestTuning>;
}

/**
 * Starts everything `tailscope serve` runs: the store (embedded or server), migrations, the
 * OTLP receivers with their write queue and write-ahead log, and the REST API (and web app).
 * `close()` drains the queue to the store before it returns.
 */
export async function serve(
  settings: Settings = loadSettings(process.env),
  opts: ServeOptions = {},
): Promise<Running> {
  const log = opts.log ?? false;
  const store = openStore({
    dataDir: settings.dataDir,
    url: settings.clickhouseUrl,
    user: settings.clickhouseUser,
    password: settings.clickhousePassword,
    database: settings.clickhouseDatabase,
    cluster: settings.clickhouseCluster,
  });
  let ready = false;
  await migrate(store);
  // The receivers open as soon as the log is read; its replay into the store goes on behind
  // them (/api/v1/stats shows the backlog), so a log the store refuses cannot keep them shut.
  const ingest = await startIngest({
    store,
    settings,
    log,
    ...(opts.ingestTuning ? { tuning: opts.ingestTuning } : {}),
  });
  // Fan-outs of closed 10-minute chunks are detected once and stored, so analysis over long
  // ranges reads them instead of joining every CLIENT and SERVER span again.
  const materializer = startFanoutMaterializer(store, {
    onError: (err: unknown) => {
      if (log) console.error('tailscope: storing detected fan-outs failed:', err);
    },
  });
  ready = true;
  const selfTrace = settings.selfTrace
    ? startSelfTrace(`http://${loopback(settings.host)}:${ingest.httpPort}`)
    : undefined;
  // Filled once the listeners are bound; /api/v1/stats reports it.
  const bound: { urls?: Running['urls'] } = {};
  const api = await buildApi(
    {
      store,
      listen: () => bound.urls,
      settings,
      ready: () => ready,
      ingestRate: () => ingest.spansPerSecond(),
      ingestStatus: () => ingest.status(),
    },
    { logger: log ? { level: settings.logLevel } : false, ...(selfTrace ? { selfTrace } : {}) },
  );
  await api.listen({ host: settings.host, port: settings.port });
  const address = api.server.address();
  const apiPort = typeof address === 'object' && address ? address.port : settings.port;
  const urls = {
    api: `http://${settings.host}:${apiPort}`,
    otlpHttp: `http://${settings.host}:${ingest.httpPort}`,
    otlpGrpc: `${settings.host}:${ingest.grpcPort}`,
  };
  bound.urls = urls;
  if (log) {
    console.log(`tailscope: store      ${store.description}`);
    console.log(`tailscope: API and UI ${urls.api}`);
    console.log(`tailscope: OTLP/HTTP  ${urls.otlpHttp}/v1/traces`);
    console.log(`tailscope: OTLP/gRPC  ${urls.otlpGrpc}`);
  }
  let closed = false;
  return {
    settings,
    store,
    api,
    ingest,
    urls,
    async close() {
      if (closed) return;
      closed = true;
      ready = false;
      await api.close();
      await selfTrace?.shutdown();
      await materializer.stop();
      await ingest.close();
      await store.close();
    },
  };
}
