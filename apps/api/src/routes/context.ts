import type { RouteApp } from '../foundation';
import type { Store } from '../store';
import type { Settings } from '../config';
import type { IngestStatus } from '../ingest';

/** What route plugins get: the store and the settings (the server fills it in). Handlers stay short. */
export interface ApiContext {
  store: Store;
  settings: Settings;
  /** Set once the store answered and migrations ran. */
  ready: () => boolean;
  /** Spans/s accepted over the last minute, for the overview page. */
  ingestRate: () => number;
  /** Replay backlog, log damage, dead letters and writer health (absent without ingest). */
  ingestStatus?: () => IngestStatus;
  /** The bound addresses, once the server listens (absent in tests without listeners). */
  listen?: () => { api: string; otlpHttp: string; otlpGrpc: string } | undefined;
  /** When the server last warmed the dashboard's first answers, epoch ms (server/warm-answers.ts). */
  warmedAt?: () => number | null;
}

/** Route groups, one Fastify plugin each. */
export type RoutePlugin = (app: RouteApp, ctx: ApiContext) => Promise<void> | void;
