import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { renderOperationCharts } from '@tailscope/charts';
import type { ReportCharts } from './html';

/**
 * The dashboard's own chart components (`@tailscope/charts`) rendered on the server, so a report
 * draws exactly what the dashboard draws, with the stylesheet their classes refer to inlined.
 */
export function loadDashboardCharts(): Promise<ReportCharts> {
  const stylesheet = createRequire(import.meta.url).resolve('@tailscope/charts/styles.css');
  return Promise.resolve({
    operation: (op) => renderOperationCharts(op),
    stylesheet: readFileSync(stylesheet, 'utf8'),
  });
}
