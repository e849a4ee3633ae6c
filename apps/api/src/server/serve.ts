import type { FastifyInstance } from 'fastify';
import { loadSettings, type Settings } from '../config';
import { openStore, migrate, type Store } from '../store';
import { startIngest, type IngestHandle, type IngestTuning } from '../ingest';
import { buildApi } from './app';
import { admissionGates } from './admit';
import { storeOptions } from './store-options';
import { startSelfTrace } from './self-trace';
import { startCallBucketMaterializer } from '../store/call-buckets/cache';
import { startOpenBucketMaterializer } from '../store/call-buckets/open';
import { startFanoutMaterializer } from '../store/fanouts/cache';
import { startOpenFanoutMaterializer } from '../store/fanouts/open';
import { startTraceSpansBackfill } from '../store/traces/trace-spans-backfill';
import { applyRetention } from '../store/schema/retention';
import { engineNiceFromEnv, niceEngineThreads } from '../store/engine/nice';
import { readSessionFromEnv } from '../store/engine/read-session';
import {
  niceOwnAutogroup,
  restoreOwnAutogroup,
  type AutogroupNice,
} from '../store/engine/session-nice';
import { statsWaitFromEnv, storeFigures } from '../cache/store-figures';
import { liveAnswersFromEnv } from '../cache/live-answers';
import { setLiveAnswers } from './live-answers';
import { startServerWarmer, warmFiguresOf, warmFromEnv } from './warm-answers';
import { prettyLogStream } from './log-stream';
import { checkExposure } from './exposure';
import { ServerMetrics } from './metrics';
import { readTls } from '../ingest';

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
  /**
   * With `log`: write request logs (JSON) to this file instead of stdout (the demo keeps its
   * terminal for status lines). Without it: JSON, made readable when stdout is a terminal.
   */
  requestLogFile?: string;
}

/** Fastify's logger: off, JSON to a file, pretty on a terminal, else JSON on stdout. */
function loggerOf(settings: Settings, opts: ServeOptions): false | object {
  if (!(opts.log ?? false)) return false;
  const level = settings.logLevel;
  if (opts.requestLogFile) return { level, file: opts.requestLogFile };
  return process.stdout.isTTY ? { level, stream: prettyLogStream() } : { level };
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
  if (settings.readOnly)
    throw new Error('TAILSCOPE_READ_ONLY is set: start the read-only server (serveReadOnly)');
  // Before anything opens: an exposed, open server is refused with the reason (exposure.ts).
  checkExposure(settings);
  const { tls } = await readTls(settings);
  const metrics = new ServerMetrics({ processMetrics: true });
  const engineNice = engineNiceFromEnv(process.env);
  const statsWaitMs = statsWaitFromEnv(process.env);
  // Checked before anything opens: a bad value is a start-up error naming it.
  const liveAnswers = liveAnswersFromEnv(process.env);
  const warm = warmFromEnv(process.env);
  readSessionFromEnv(process.env);
  const store = openStore(storeOptions(settings));
  setLiveAnswers(store, liveAnswers);
  // /api/v1/stats answers from kept figures, refreshed after ingest commits (store-figures.ts).
  const figures = storeFigures(store, statsWaitMs);
  // The embedded engine's threads yield to the machine's other work (engine-nice.ts).
  let group: AutogroupNice | undefined;
  if (store.embedded) {
    const niced = await niceEngineThreads(engineNice);
    if (log && niced.skipped === undefined)
      console.log(
        `tailscope: the engine's ${niced.threads.length} threads run at nice ${niced.nice}`,
      );
    // And the whole server's scheduling group, when it is its own (session-nice.ts).
    group = niceOwnAutogroup(engineNice);
    if (log && group.applied)
      console.log(`tailscope: its session's autogroup runs at nice ${group.nice}`);
  }
  let ready = false;
  await migrate(store);
  await applyRetention(store, settings);
  // The receivers open as soon as the log is read; its replay into the store goes on behind
  // them (/api/v1/stats shows the backlog), so a log the store refuses cannot keep them shut.
  const ingest = await startIngest({
    store,
    settings,
    log,
    observer: metrics,
    ...(opts.ingestTuning ? { tuning: opts.ingestTuning } : {}),
  });
  metrics.watch({ ingest, store });
  // Fan-outs of closed 10-minute chunks are detected once and stored, so analysis over long
  // ranges reads them instead of joining every CLIENT and SERVER span again.
  // Their timer passes give way while a person waits on an analysis (chunks.ts MAX_YIELDS).
  const yieldTo = (): boolean => admissionGates(store).analysis.busy;
  const materializer = startFanoutMaterializer(store, {
    yieldTo,
    onError: (err: unknown) => {
      if (log) console.error('tailscope: storing detected fan-outs failed:', err);
    },
  });
  // Episode series of closed chunks likewise, per 10 s bucket: episodes read them instead of
  // recomputing the calls of the whole range on every request.
  const bucketMaterializer = startCallBucketMaterializer(store, {
    yieldTo,
    onError: (err: unknown) => {
      if (log) console.error('tailscope: storing episode series failed:', err);
    },
  });
  // And the settled 10 s buckets of the open chunk, so a range ending now computes live only
  // its newest seconds.
  const openMaterializer = startOpenBucketMaterializer(store, {
    yieldTo,
    onError: (err: unknown) => {
      if (log) console.error('tailscope: storing open episode series failed:', err);
    },
  });
  // The open chunk's fan-outs and edges likewise: a page over a range ending now detects live
  // only the newest seconds, not up to ten minutes.
  const openFanouts = startOpenFanoutMaterializer(store, {
    yieldTo,
    onError: (err: unknown) => {
      if (log) console.error('tailscope: storing open fan-outs failed:', err);
    },
  });
  // The narrow span copy's spans stored before it existed, copied behind the receivers (reads
  // take the spans table where the copy has not reached: trace-spans.ts).
  const backfill = startTraceSpansBackfill(store, {
    yieldTo,
    ...(log
      ? {
          log: (line: string) => {
            console.log(line);
          },
        }
      : {}),
    onError: (err: unknown) => {
      if (log) console.error('tailscope: copying spans to the narrow copy failed:', err);
    },
  });
  ready = true;
  const selfTrace = settings.selfTrace
    ? startSelfTrace(`${tls ? 'https' : 'http'}://${loopback(settings.host)}:${ingest.httpPort}`, {
        ...(settings.ingestTokens[0] ? { token: settings.ingestTokens[0] } : {}),
        ...(tls ? { cert: tls.cert } : {}),
      })
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
      ...(warm ? { warmedAt: () => warmFiguresOf(store)?.lastPassAtMs ?? null } : {}),
    },
    {
      logger: loggerOf(settings, opts),
      metrics,
      ...(selfTrace ? { selfTrace } : {}),
      ...(tls ? { https: tls } : {}),
    },
  );
  await api.listen({ host: settings.host, port: settings.port });
  const address = api.server.address();
  const apiPort = typeof address === 'object' && address ? address.port : settings.port;
  const scheme = tls ? 'https' : 'http';
  const urls = {
    api: `${scheme}://${settings.host}:${apiPort}`,
    otlpHttp: `${scheme}://${settings.host}:${ingest.httpPort}`,
    otlpGrpc: `${settings.host}:${ingest.grpcPort}`,
  };
  bound.urls = urls;
  // The dashboard's first questions answered in the background (warm-answers.ts).
  const warmer = warm ? startServerWarmer(api, store, warm, settings.apiTokens, log) : undefined;
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
      if (group) restoreOwnAutogroup(group);
      await warmer?.stop();
      await api.close();
      await selfTrace?.shutdown();
      await materializer.stop();
      await bucketMaterializer.stop();
      await openMaterializer.stop();
      await openFanouts.stop();
      await backfill.stop();
      await ingest.close();
      figures.stop();
      await store.close();
    },
  };
}
