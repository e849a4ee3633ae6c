import type { Report } from './types';
import { summarizeReport } from './summary';

/**
 * The report as one long CSV table, one measured number per line, so a spreadsheet can pivot it
 * any way a capacity review wants: operation columns, then `section`, `name`, `value` and, for
 * numbers with a 95% interval, `low` and `high`.
 */
const HEADER = [
  'parentService',
  'parentOperation',
  'leafService',
  'leafOperation',
  'section',
  'name',
  'value',
  'low',
  'high',
] as const;

function cell(v: string | number | null | undefined): string {
  if (v === null || v === undefined) return '';
  const s = typeof v === 'number' ? (Number.isFinite(v) ? String(v) : '') : v;
  // RFC 4180: quote fields holding a separator, a quote or a line break; double inner quotes.
  // A leading = + - @ would be run as a formula by spreadsheets: prefix it with a quote.
  const safe = /^[=+\-@]/.test(s) && typeof v === 'string' ? `'${s}` : s;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export function reportToCsv(report: Report): string {
  const lines: string[] = [HEADER.join(',')];
  for (const op of report.operations) {
    const f = op.fanout;
    const key = [f.parentService, f.parentOperation, f.leafService, f.leafOperation];
    const row = (
      section: string,
      name: string,
      value: number | string | null,
      low?: number,
      high?: number,
    ) => {
      lines.push([...key, section, name, value, low, high].map(cell).join(','));
    };
    row('fanout', 'requests', f.requests);
    row('fanout', 'width.p50', f.width.p50);
    row('fanout', 'width.max', f.width.max);
    for (const [stat, q] of Object.entries({
      oneLeaf: f.table1.oneLeaf,
      p95Leaves: f.table1.p95Leaves,
      allLeaves: f.table1.allLeaves,
    })) {
      for (const [p, v] of Object.entries(q)) row('table1', `${stat}.${p}Ms`, v);
    }
    row('table1', 'slowest5pctShareOfP99', f.table1.slowest5pctShareOfP99);
    row('amplification', 'thresholdMs', f.amplification.thresholdMs);
    row('amplification', 'observedTailProbability', f.amplification.observedTailProbability);
    row('amplification', 'predictedTailProbability', f.amplification.predictedTailProbability);
    row('amplification', 'verdict', f.amplification.verdict);
    row('stragglers', 'tailThresholdMs', op.stragglers.tailThresholdMs);
    row('stragglers', 'tailFanouts', op.stragglers.tailFanouts);
    for (const s of op.stragglers.rows) {
      const name = `${s.dimension}=${s.value}`;
      row('stragglers', `${name}.calls`, s.calls);
      row('stragglers', `${name}.stragglerShare`, s.stragglerShare);
      row('stragglers', `${name}.trafficShare`, s.trafficShare);
      row(
        'stragglers',
        `${name}.riskRatio`,
        s.riskRatio,
        s.riskRatioLow ?? undefined,
        s.riskRatioHigh ?? undefined,
      );
      row('stragglers', `${name}.qValue`, s.qValue);
      row('stragglers', `${name}.cause`, String(s.cause));
      row('stragglers', `${name}.p99DropMs`, s.p99DropMs);
    }
    for (const w of op.whatIf) {
      const section = `whatif:${w.label}`;
      for (const p of ['p50', 'p90', 'p99', 'p999'] as const) {
        row(section, `baseline.${p}Ms`, w.result.baseline[p]);
        const iv = w.result.whatIf[p];
        row(section, `whatIf.${p}Ms`, iv.value, iv.low, iv.high);
      }
      row(section, 'extraLoad', w.result.extraLoad);
      if (w.result.probation) row(section, 'capacityRemoved', w.result.probation.capacityRemoved);
      // The API answers completeness as an object (the report's old copy said a number).
      const c = w.result.completeness;
      if (c) {
        row(section, 'completeness.callsAnswered', c.callsAnswered);
        row(section, 'completeness.requestsComplete', c.requestsComplete);
        row(section, 'completeness.lost', c.lost);
      }
    }
  }
  // The summary's numbers (schemaVersion 2), one section per operation, rank first.
  for (const s of (report.summary ?? summarizeReport(report)).operations) {
    const key = [s.parentService, s.parentOperation, s.leafService, s.leafOperation];
    const row = (name: string, value: number | string | null, low?: number, high?: number) => {
      lines.push([...key, 'summary', name, value, low, high].map(cell).join(','));
    };
    row('rank', s.rank);
    row('hosts', s.hosts);
    row('tailRequests', s.tailRequests);
    row('recommendation', s.recommendation.verdict);
    row('recommendation.policy', s.recommendation.policy);
    for (const p of s.policies) {
      row(`${p.label}.p99ChangeMs`, p.p99ChangeMs.value, p.p99ChangeMs.low, p.p99ChangeMs.high);
      row(`${p.label}.extraMachines`, p.extraMachines);
      row(`${p.label}.removedMachines`, p.removedMachines);
    }
  }
  return `${lines.join('\r\n')}\r\n`;
}
