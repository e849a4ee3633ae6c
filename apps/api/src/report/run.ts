import { writeFileSync } from 'node:fs';
import { API_PATHS, type EndpointResponse } from '@tailscope/contracts';
import { loadSettings } from '../config';
import { openStore, migrate } from '../store';
import { detectAccelerators } from '../store/schema/accelerators';
import { buildStoreApi } from '../server/app';
import { storeOptions } from '../server/store-options';
import { collectReport, httpCaller, injectCaller, type ApiCall } from './collect';
import { reportToCsv } from './csv';
import { reportToHtml, type ReportCharts } from './html';
import { htmlToPdf } from './pdf';
import type { Report } from './types';
import { loadDashboardCharts } from './charts';

export type ReportFormat = 'json' | 'csv' | 'html' | 'pdf';

export interface ReportRun {
  /** A running server to ask; without it the store under `dataDir` (or CLICKHOUSE_URL) is opened here. */
  url?: string | undefined;
  /** Sent as `Authorization: Bearer` to `url` (a server with TAILSCOPE_API_TOKENS). */
  apiToken?: string | undefined;
  dataDir: string;
  clickhouseUrl?: string | undefined;
  /** Epoch ms; default: the oldest span in the store. */
  fromMs?: number | undefined;
  /** Epoch ms; default: just after the newest span. */
  toMs?: number | undefined;
  leafService?: string | undefined;
  leafOperation?: string | undefined;
  format: ReportFormat;
  /** A file; without it JSON, CSV and HTML go to stdout. */
  out?: string | undefined;
  maxOperations: number;
  seed: number;
  /** Root p99 objective of the capacity section, ms (default: today's p99). */
  sloMs?: number | undefined;
  version: string;
  /** Chart renderer for HTML and PDF; default: the dashboard's own charts. */
  charts?: ReportCharts | undefined;
  onProgress?: (done: number, total: number, label: string) => void;
}

/** The format a file name asks for, when --format is not given. */
export function formatFromName(out: string | undefined): ReportFormat {
  const ext = out?.split('.').pop()?.toLowerCase();
  return ext === 'csv' || ext === 'html' || ext === 'pdf' ? ext : 'json';
}

export function renderReport(
  report: Report,
  format: Exclude<ReportFormat, 'pdf'>,
  charts?: ReportCharts,
): string {
  if (format === 'csv') return reportToCsv(report);
  if (format === 'html') return reportToHtml(report, charts);
  return `${JSON.stringify(report, null, 2)}\n`;
}

async function withCaller<T>(run: ReportRun, use: (call: ApiCall) => Promise<T>): Promise<T> {
  if (run.url) return use(httpCaller(run.url, run.apiToken));
  const settings = loadSettings(process.env, {
    dataDir: run.dataDir,
    clickhouseUrl: run.clickhouseUrl,
  });
  const store = openStore(storeOptions(settings, { readOnly: settings.readOnly }));
  try {
    // Read-only (a Collector's table): no migration, the optional tables as they are.
    if (settings.readOnly) await detectAccelerators(store);
    else await migrate(store);
    // In-process, never listening: the API tokens guard a network no request crosses here.
    const app = await buildStoreApi(store, { ...settings, apiTokens: [] });
    try {
      return await use(injectCaller(app));
    } finally {
      await app.close();
    }
  } finally {
    await store.close();
  }
}

/** Builds the report and writes it; returns it too (tests read it back). */
export async function runReport(
  run: ReportRun,
): Promise<{ report: Report; output: string | undefined }> {
  if (run.format === 'pdf' && !run.out) throw new Error('--format pdf needs --out FILE');
  const report = await withCaller(run, async (call) => {
    let { fromMs, toMs } = run;
    if (fromMs === undefined || toMs === undefined) {
      const { method, path } = API_PATHS.stats;
      const stats = (await call(method, path)) as EndpointResponse<'stats'>;
      fromMs ??= stats.oldestUnixNano
        ? Math.floor(Number(BigInt(stats.oldestUnixNano) / 1_000_000n))
        : 0;
      toMs ??= stats.newestUnixNano
        ? Math.ceil(Number(BigInt(stats.newestUnixNano) / 1_000_000n)) + 1
        : 1;
    }
    return collectReport(call, {
      fromMs,
      toMs,
      leafService: run.leafService,
      leafOperation: run.leafOperation,
      maxOperations: run.maxOperations,
      seed: run.seed,
      sloMs: run.sloMs,
      now: new Date(),
      version: run.version,
      ...(run.onProgress ? { onProgress: run.onProgress } : {}),
    });
  });
  const charts =
    run.format === 'html' || run.format === 'pdf'
      ? (run.charts ?? (await loadDashboardCharts()))
      : undefined;
  if (run.format === 'pdf') {
    await htmlToPdf(reportToHtml(report, charts), run.out ?? 'report.pdf');
    return { report, output: undefined };
  }
  const text = renderReport(report, run.format, charts);
  if (run.out) writeFileSync(run.out, text);
  return { report, output: run.out ? undefined : text };
}
