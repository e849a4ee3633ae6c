import { createElement, type FunctionComponent } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { AmplificationView } from './amplification/AmplificationView';
import { layoutAmplification, type CurvePoint } from './amplification/layout';
import { ForestView } from './forest/ForestView';
import { layoutForest, type ForestInput } from './forest/layout';
import { PercentileBarsView } from './percentile-bars/PercentileBarsView';
import { layoutPercentileBars, type Estimate } from './percentile-bars/layout';

/** An attribution row as a report holds it: a ratio it could not estimate is null. */
export interface ReportStragglerRow extends Omit<
  ForestInput,
  'riskRatio' | 'riskRatioLow' | 'riskRatioHigh'
> {
  riskRatio: number | null;
  riskRatioLow: number | null;
  riskRatioHigh: number | null;
  p99DropMs: number | null;
}

/** What the report's charts read from one operation of a report (the API's `OperationReport`). */
export interface ReportOperationCharts {
  fanout: {
    width: { p50: number };
    amplification: { thresholdMs: number };
    curve: CurvePoint[];
  };
  stragglers: { rows: ReportStragglerRow[] };
  whatIf: {
    label: string;
    result: {
      baseline: { p50: number; p90: number; p99: number; p999: number };
      whatIf: { p50: Estimate; p90: Estimate; p99: Estimate; p999: Estimate };
    };
  }[];
}

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
function forestRows(rows: readonly ReportStragglerRow[]): ReportStragglerRow[] {
  return [...rows]
    .filter((r) => r.riskRatio !== null && Number.isFinite(r.riskRatio))
    .sort((a, b) => Number(b.cause) - Number(a.cause) || a.qValue - b.qValue)
    .slice(0, 10);
}

/** SVG markup of one operation's charts, for the HTML report. */
export function renderOperationCharts(op: ReportOperationCharts): string {
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
