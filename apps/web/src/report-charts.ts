import { createElement, type FunctionComponent } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import {
  AmplificationView,
  ForestView,
  PercentileBarsView,
  STYLESHEET_URL,
  layoutAmplification,
  layoutForest,
  layoutPercentileBars,
} from './index';
import type { OperationReport, StragglerRow } from '@tailscope/contracts';

/**
 * The dashboard's own chart components rendered on the server (React to static SVG), so a
 * report draws exactly what the dashboard draws: the amplification curve, the straggler forest
 * plot and, per replayed policy, baseline vs what-if percentile bars with their intervals.
 */
const WIDTH = 900;

function escapeHtml(s: string): string {
  return s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

function svg<P extends object>(view: FunctionComponent<P>, props: P): string {
  return renderToStaticMarkup(createElement(view, props));
}

/** The forest shows the rows a reader acts on: causes first, then the strongest others. */
function forestRows(rows: readonly StragglerRow[]): StragglerRow[] {
  return [...rows]
    .filter((r) => r.riskRatio !== null && Number.isFinite(r.riskRatio))
    .sort((a, b) => Number(b.cause) - Number(a.cause) || a.qValue - b.qValue)
    .slice(0, 10);
}

export { STYLESHEET_URL };

/** SVG markup of one operation's charts, for the HTML report (see apps/api/src/report). */
export function renderOperationCharts(op: OperationReport): string {
  const f = op.fanout;
  const parts: string[] = [];
  if (f.curve.length > 0) {
    const layout = layoutAmplification(
      f.curve,
      { thresholdMs: f.amplification.thresholdMs, widthP50: f.width.p50 },
      { width: WIDTH, height: 300 },
    );
    parts.push(svg(AmplificationView, { layout, title: 'Tail probability against fan-out width' }));
  }
  const rows = forestRows(op.stragglers.rows).map((r) => ({
    ...r,
    riskRatio: r.riskRatio ?? Number.NaN,
    riskRatioLow: r.riskRatioLow ?? Number.NaN,
    riskRatioHigh: r.riskRatioHigh ?? Number.NaN,
    p99DropMs: r.p99DropMs ?? Number.NaN,
  }));
  if (rows.length > 0) {
    const layout = layoutForest(rows, WIDTH);
    parts.push(svg(ForestView, { layout, title: 'Straggler risk ratios (95% CI)' }));
  }
  for (const w of op.whatIf) {
    const layout = layoutPercentileBars(w.result.baseline, w.result.whatIf, WIDTH);
    const title = `Baseline vs ${w.label}`;
    parts.push(`<h3>${escapeHtml(w.label)}</h3>${svg(PercentileBarsView, { layout, title })}`);
  }
  return parts.join('\n');
}
