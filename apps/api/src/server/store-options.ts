import type { Settings } from '../config';
import type { StoreOptions } from '../store';

/** The store the settings name (embedded or server, database, cluster, spans table). */
export function storeOptions(settings: Settings, opts: { readOnly?: boolean } = {}): StoreOptions {
  return {
    dataDir: settings.dataDir,
    url: settings.clickhouseUrl,
    user: settings.clickhouseUser,
    password: settings.clickhousePassword,
    database: settings.clickhouseDatabase,
    cluster: settings.clickhouseCluster,
    tracesTable: settings.tracesTable,
    analysis: { threads: settings.analysisThreads, maxQueue: settings.analysisQueue },
    ...(opts.readOnly !== undefined ? { readOnly: opts.readOnly } : {}),
  };
}
