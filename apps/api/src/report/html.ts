import { formatPValue } from '@tailscope/charts';
import type { OperationReport, Report, StragglerRow } from './types';
import { summarizeReport } from './summary';
import { summaryHtml } from './summary-html';

/**
 * The report as one self-contained HTML document (inline CSS and SVG, no scripts, nothing
 * fetched), readable on screen and printable to PDF. Charts come from `charts`, which renders
 * the dashboard's own chart components on the server, so a report looks like the dashboard.
 */
export interface ReportCharts {
  /** SVG markup for one operation (amplification curve, CDFs, forest plot, what-if bars). */
  operation(op: OperationReport): string;
  /** CSS the chart markup's classes refer to (the dashboard's stylesheet), inlined first. */
  stylesheet: string;
}

function esc(s: string): string {
  return s
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');
}

function ms(v: number): string {
  if (!Number.isFinite(v)) return '–';
  if (v >= 1000) return `${(v / 1000).toFixed(2)} s`;
  if (v >= 100) return `${v.toFixed(0)} ms`;
  if (v >= 10) return `${v.toFixed(1)} ms`;
  return `${v.toFixed(2)} ms`;
}

function pct(v: number): string {
  return Number.isFinite(v) ? `${(v * 100).toFixed(v < 0.01 ? 2 : 1)}%` : '–';
}

function num(v: number | null): string {
  if (v === null || !Number.isFinite(v)) return '–';
  return v >= 100 ? v.toFixed(0) : v.toFixed(2);
}

function isoRange(r: Report['range']): string {
  return `${new Date(r.fromMs).toISOString()} – ${new Date(r.toMs).toISOString()}`;
}

function table1(op: OperationReport): string {
  const t = op.fanout.table1;
  const rows: [string, typeof t.oneLeaf][] = [
    ['one random leaf finishes', t.oneLeaf],
    ['95% of leaves finish', t.p95Leaves],
    ['all leaves finish', t.allLeaves],
  ];
  return `<table class="num"><caption>Table 1: leaf finishing times across ${op.fanout.requests.toLocaleString('en-US')} fan-outs</caption>
<thead><tr><th></th><th>p50</th><th>p95</th><th>p99</th><th>p99.9</th></tr></thead><tbody>
${rows.map(([label, q]) => `<tr><th>${label}</th><td>${ms(q.p50)}</td><td>${ms(q.p95)}</td><td>${ms(q.p99)}</td><td>${ms(q.p999)}</td></tr>`).join('\n')}
</tbody></table>
<p>Waiting for the slowest 5% of leaves takes <b>${pct(t.slowest5pctShareOfP99)}</b> of the all-leaves p99.</p>`;
}

function amplification(op: OperationReport): string {
  const a = op.fanout.amplification;
  return `<p>Above ${ms(a.thresholdMs)}: observed in <b>${pct(a.observedTailProbability)}</b> of requests,
independence predicts ${pct(a.predictedTailProbability)} (1 − F(t)<sup>N</sup>). Verdict: <b>${esc(a.verdict)}</b>.</p>`;
}

function stragglerTable(rows: StragglerRow[]): string {
  const shown = [...rows]
    .sort((a, b) => a.qValue - b.qValue || b.stragglerShare - a.stragglerShare)
    .slice(0, 12);
  if (shown.length === 0) return '<p>No stragglers in this range.</p>';
  return `<table class="num"><caption>Straggler attribution (cause: q &lt; 0.05, risk ratio &gt; 1, stragglers, and a p99 that would drop without it)</caption>
<thead><tr><th>dimension</th><th>value</th><th>traffic</th><th>stragglers</th><th>risk ratio (95% CI)</th><th>q</th><th>p99 drop</th><th></th></tr></thead><tbody>
${shown
  .map(
    (r) =>
      `<tr${r.cause ? ' class="cause"' : ''}><td class="t">${esc(r.dimension)}</td><td class="t">${esc(r.value)}</td><td>${pct(r.trafficShare)}</td><td>${pct(r.stragglerShare)}</td><td>${num(r.riskRatio)} (${num(r.riskRatioLow)}–${num(r.riskRatioHigh)})</td><td>${esc(formatPValue(r.qValue))}</td><td>${r.p99DropMs === null ? '–' : ms(r.p99DropMs)}</td><td>${r.cause ? 'cause' : ''}</td></tr>`,
  )
  .join('\n')}
</tbody></table>`;
}

function whatIfTable(op: OperationReport): string {
  return `<table class="num"><caption>What-if replays of the recorded fan-outs (95% bootstrap intervals)</caption>
<thead><tr><th>policy</th><th>p50</th><th>p90</th><th>p99</th><th>p99.9</th><th>extra load</th><th>capacity removed</th></tr></thead><tbody>
<tr><th>today (baseline)</th>${(['p50', 'p90', 'p99', 'p999'] as const).map((p) => `<td>${ms(op.whatIf[0]?.result.baseline[p] ?? Number.NaN)}</td>`).join('')}<td>–</td><td>–</td></tr>
${op.whatIf
  .map((w) => {
    const cells = (['p50', 'p90', 'p99', 'p999'] as const)
      .map((p) => {
        const iv = w.result.whatIf[p];
        return `<td>${ms(iv.value)}<br><small>${ms(iv.low)}–${ms(iv.high)}</small></td>`;
      })
      .join('');
    const capacity = w.result.probation ? pct(w.result.probation.capacityRemoved) : '–';
    return `<tr><th>${esc(w.label)}</th>${cells}<td>${pct(w.result.extraLoad)}</td><td>${capacity}</td></tr>`;
  })
  .join('\n')}
</tbody></table>`;
}

function operationSection(op: OperationReport, charts: ReportCharts | undefined): string {
  const f = op.fanout;
  return `<section class="op">
<h2>${esc(f.parentService)} ${esc(f.parentOperation)} → ${esc(f.leafService)} ${esc(f.leafOperation)}</h2>
<p class="meta">${f.requests.toLocaleString('en-US')} fan-outs, width p50 ${num(f.width.p50)}, max ${num(f.width.max)}</p>
${table1(op)}
${amplification(op)}
${charts ? `<div class="charts">${charts.operation(op)}</div>` : ''}
${stragglerTable(op.stragglers.rows)}
${whatIfTable(op)}
</section>`;
}

// Colours come from the dashboard's palette variables when its stylesheet is inlined (light and
// dark follow prefers-color-scheme); the fallbacks are the light palette.
const CSS = `
html { background: var(--surface, #fff); }
body { font: 13px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--text, #1c1c1a);
  background: var(--surface, #fff); margin: 32px auto; max-width: 980px; padding: 0 24px; }
h1 { font-size: 22px; margin: 0 0 4px; } h3 { font-size: 13px; margin: 14px 0 2px; }
h2 { font-size: 16px; margin: 28px 0 4px; border-top: 1px solid var(--border, #e2e2dd); padding-top: 16px; }
.meta, caption { color: var(--muted, #62625d); } caption { text-align: left; padding: 6px 0; caption-side: top; }
table { border-collapse: collapse; margin: 8px 0 12px; width: 100%; }
th, td { border-bottom: 1px solid var(--border, #e2e2dd); padding: 4px 8px; text-align: left; vertical-align: top;
  white-space: normal; overflow-wrap: break-word; }
/* The dashboard stylesheet (inlined for the charts) keeps cells on one line, which pushed the
   summary's recommendation column off the page ("ado" at 1280 px, "a" in the PDF). */
table.num td:not(.t) { white-space: nowrap; } table.num td.t, table.num td small { white-space: normal; }
table.num td, table.num thead th { font-variant-numeric: tabular-nums; text-align: right; }
table.num td.t, table.num thead th:first-child { text-align: left; }
tr.cause td, tr.cause th { color: var(--accent, #c2410c); font-weight: 600; }
.summary .gain b { color: var(--accent, #c2410c); } .summary p { margin: 4px 0; }
small { color: var(--muted, #62625d); } .charts svg { max-width: 100%; height: auto; display: block; margin: 8px 0; }
table, .charts svg { break-inside: avoid; }
@media print { body { margin: 0; } h2 { break-after: avoid; } }
`;

export function reportToHtml(report: Report, charts?: ReportCharts): string {
  const s = report.store;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Tailscope report ${esc(report.generatedAt)}</title>
<meta name="generator" content="tailscope ${esc(report.tool.version)} (report schema ${report.schemaVersion})">
<style>${charts?.stylesheet ?? ''}${CSS}</style></head><body>
<h1>Tailscope: fan-out tail report</h1>
<p class="meta">${esc(isoRange(report.range))} · generated ${esc(report.generatedAt)} · ${s.spans.toLocaleString('en-US')} spans, ${s.traces.toLocaleString('en-US')} traces, ${s.services} services in the store</p>
${summaryHtml(report.summary ?? summarizeReport(report))}
${report.operations.length === 0 ? '<p>No fan-out operations in this range. Send traces (see the README) or run <code>npm run demo</code>.</p>' : ''}
${report.operations.map((op) => operationSection(op, charts)).join('\n')}
</body></html>
`;
}
