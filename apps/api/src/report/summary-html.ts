import type { ReportSummary } from '@tailscope/contracts';
import { fmtMs, fmtPct } from './summary';

function esc(s: string): string {
  return s
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');
}

const VERDICT = { adopt: 'adopt', keep: 'keep as is', 'insufficient-data': 'too little data' };

/**
 * The report's first page: one ranked table (operation, tail now, each policy's p99 with its
 * interval and its cost in machines, the recommendation), then the same in sentences.
 */
export function summaryHtml(summary: ReportSummary): string {
  if (summary.operations.length === 0) return '';
  const rows = summary.operations.map((s) => {
    const policies = s.policies
      .map(
        (p) =>
          `<div${p.clearGain ? ' class="gain"' : ''}>${esc(p.label)}: <b>${fmtMs(p.p99Ms.value)}</b> <small>(${fmtMs(p.p99Ms.low)}–${fmtMs(p.p99Ms.high)})</small>, +${fmtPct(p.extraLoad)} load = ${p.extraMachines.toFixed(2)} machines${p.capacityRemoved > 0 ? `, ${fmtPct(p.capacityRemoved)} out = ${p.removedMachines.toFixed(2)} machines` : ''}</div>`,
      )
      .join('');
    return `<tr><td>${s.rank}</td><td class="t">${esc(s.leafService)} ${esc(s.leafOperation)}<br><small>${esc(s.parentService)} ${esc(s.parentOperation)} · ${s.hosts} hosts · ${s.requests.toLocaleString('en-US')} fan-outs</small></td><td>${fmtMs(s.tail.p99Ms)}<br><small>${s.tailRequests} in tail</small></td><td class="t">${policies}</td><td class="t"><b>${VERDICT[s.recommendation.verdict]}</b>${s.recommendation.policy ? `: ${esc(s.recommendation.policy)}` : ''}</td></tr>`;
  });
  return `<section class="summary">
<h2>Summary</h2>
<table class="num"><caption>Operations ranked by what acting on them buys; policies replayed on the recorded fan-outs, costs in machines at today's traffic</caption>
<thead><tr><th>#</th><th>operation</th><th>p99 now</th><th>policies: p99 (95% interval), cost</th><th>recommendation</th></tr></thead><tbody>
${rows.join('\n')}
</tbody></table>
${summary.lines.map((l) => `<p>${esc(l)}</p>`).join('\n')}${capacityHtml(summary)}
</section>`;
}

const cell = (e: { value: number; low: number; high: number } | null): string =>
  e ? `${fmtMs(e.value)} <small>(${fmtMs(e.low)}–${fmtMs(e.high)})</small>` : '<b>saturates</b>';

/** Issue 29: per operation's requests, p99 and machines at each traffic factor. */
function capacityHtml(summary: ReportSummary): string {
  const ops = summary.capacity ?? [];
  if (ops.length === 0) return '';
  const tables = ops.map((c) => {
    const factors = c.root.map((r) => r.factor);
    const head = factors.map((f) => `<th>${f}x p99</th><th>${f}x machines</th>`).join('');
    const root = `<tr><td class="t"><b>root</b></td>${c.root.map((r) => `<td>${cell(r.p99Ms)}</td><td></td>`).join('')}</tr>`;
    const rows = c.services.map(
      (v) =>
        `<tr><td class="t">${esc(v.service)}</td>${v.at.map((a) => `<td>${cell(a.p99Ms)}${a.extrapolated ? ' <small>extrapolated</small>' : ''}</td><td>${a.machines ?? '–'} <small>(today ${a.instances})</small></td>`).join('')}</tr>`,
    );
    return `<table class="num"><caption>Capacity: requests holding ${esc(c.leafService)} ${esc(c.leafOperation)}; machines to keep the root p99 under ${fmtMs(c.sloMs)}</caption>
<thead><tr><th>service</th>${head}</tr></thead><tbody>
${root}
${rows.join('\n')}
</tbody></table>
<p>${esc(c.text)}</p>`;
  });
  return `\n<h3>Capacity at more traffic</h3>\n${tables.join('\n')}`;
}
