import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ReportCharts } from './html';
import type { OperationReport } from './types';

/**
 * The dashboard's own chart components, rendered on the server by the web app's
 * `report-charts` module, so a report draws exactly what the dashboard draws. It is loaded at
 * run time: it is JSX over DOM typings, which the web app's type check covers, not this one.
 */
const WEB_REPORT_CHARTS = '@tailscope/web/report-charts';

interface WebReportCharts {
  renderOperationCharts(op: OperationReport): string;
  STYLESHEET_URL: string;
}

export async function loadDashboardCharts(): Promise<ReportCharts> {
  const web = (await import(WEB_REPORT_CHARTS)) as WebReportCharts;
  return {
    operation: (op) => web.renderOperationCharts(op),
    stylesheet: readFileSync(fileURLToPath(web.STYLESHEET_URL), 'utf8'),
  };
}
