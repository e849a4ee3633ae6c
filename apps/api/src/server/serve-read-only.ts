import type { FastifyInstance } from 'fastify';
import type { Settings } from '../config';
import { openStore, type Store } from '../store';
import { detectAccelerators } from '../store/schema/accelerators';
import { engineNiceFromEnv, niceEngineThreads } from '../store/engine/nice';
import { readSessionFromEnv } from '../store/engine/read-session';
import { niceOwnAutogroup } from '../store/engine/session-nice';
import { statsWaitFromEnv, storeFigures } from '../cache/store-figures';
import { liveAnswersFromEnv } from '../cache/live-answers';
import { startServerWarmer, warmFiguresOf, warmFromEnv } from './warm-answers';
import { setLiveAnswers } from './live-answers';
import { buildApi } from './app';
import { storeOptions } from './store-options';
import { checkExposure } from './exposure';
import { ServerMetrics } from './metrics';
import { readTls } from '../ingest';

export interface ReadOnlyRunning {
  settings: Settings;
  store: Store;
  api: FastifyInstance;
  urls: { api: string };
  close(): Promise<void>;
}

/**
 * `tailscope serve` with TAILSCOPE_READ_ONLY=1: the REST API and web app over a spans table
 * something else writes (the OpenTelemetry Collector's clickhouseexporter). No migrations, no
 * ingest listeners, no write-ahead log, no stored fan-outs: the connection itself is
 * `readonly = 2`, so the engine refuses any write or DDL. Our own tables are used when they
 * happen to be there (detectAccelerators), never created.
 */
export async function serveReadOnly(
  settings: Settings,
  opts: { log?: boolean } = {},
): Promise<ReadOnlyRunning> {
  const log = opts.log ?? false;
  // No OTLP listener here, so only the API must not be open beyond this machine.
  checkExposure(settings, { ingest: false });
  const { tls } = await readTls(settings);
  const engineNice = engineNiceFromEnv(process.env);
  const statsWaitMs = statsWaitFromEnv(process.env);
  // Checked before anything opens: a bad value is a start-up error naming it.
  const liveAnswers = liveAnswersFromEnv(process.env);
  const warm = warmFromEnv(process.env);
  readSessionFromEnv(process.env);
  const store = openStore(storeOptions(settings, { readOnly: true }));
  setLiveAnswers(store, liveAnswers);
  storeFigures(store, statsWaitMs);
  // The embedded engine's threads yield to the machine's other work (engine-nice.ts).
  if (store.embedded) {
    await niceEngineThreads(engineNice);
    niceOwnAutogroup(engineNice);
  }
  let accelerators;
  try {
    accelerators = await detectAccelerators(store);
  } catch (err) {
    await store.close();
    throw err;
  }
  const api = await buildApi(
    {
      store,
      settings,
      ready: () => true,
      ingestRate: () => 0,
      ...(warm ? { warmedAt: () => warmFiguresOf(store)?.lastPassAtMs ?? null } : {}),
    },
    {
      logger: log ? { level: settings.logLevel } : false,
      metrics: new ServerMetrics({ processMetrics: true }),
      ...(tls ? { https: tls } : {}),
    },
  );
  await api.listen({ host: settings.host, port: settings.port });
  const address = api.server.address();
  const apiPort = typeof address === 'object' && address ? address.port : settings.port;
  const urls = { api: `${tls ? 'https' : 'http'}://${settings.host}:${apiPort}` };
  // The dashboard's first questions answered in the background (warm-answers.ts).
  const warmer = warm ? startServerWarmer(api, store, warm, settings.apiTokens, log) : undefined;
  if (log) {
    const missing = Object.entries(accelerators)
      .filter(([, has]) => !has)
      .map(([name]) => name);
    console.log(`tailscope: store      ${store.description}`);
    console.log(`tailscope: read-only  no ingest, no migrations, no writes`);
    if (missing.length > 0)
      console.log(`tailscope: without    ${missing.join(', ')} (reads fall back, slower)`);
    console.log(`tailscope: API and UI ${urls.api}`);
  }
  let closed = false;
  return {
    settings,
    store,
    api,
    urls,
    async close() {
      if (closed) return;
      closed = true;
      await warmer?.stop();
      await api.close();
      await store.close();
    },
  };
}
