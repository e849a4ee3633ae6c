import type {
  OperationReport,
  OperationSummary,
  PolicySummary,
  Report,
  ReportSummary,
} from '@tailscope/contracts';
import { fmtMs, fmtPct } from './format';
import { summarizeCapacity } from './summary-capacity';

export { fmtMs, fmtPct };

/**
 * The one page a report opens with: per operation, the fleet's tail now, what each replayed
 * policy would buy (its p99 with the 95% interval) and cost (extra calls, capacity taken out,
 * both in machines at today's traffic: the share times the leaf's hosts), and a recommendation;
 * ranked so the first line is the first thing to act on. Pure: built from the report's own
 * numbers, so a schemaVersion 1 report gets the same summary when rendered.
 */

/**
 * Fewer fan-outs above the p99 than this and the p99 (and any change to it) rests on a handful
 * of requests: the summary says so instead of recommending.
 */
export const MIN_TAIL_REQUESTS = 10;

const fmtMachines = (v: number): string => (v >= 10 ? v.toFixed(0) : v.toFixed(2));

function hostsOf(op: OperationReport): number {
  const hosts = new Set(
    op.stragglers.rows
      .filter((r) => r.dimension === 'host' && r.value !== 'unknown')
      .map((r) => r.value),
  );
  return hosts.size;
}

function policySummary(run: OperationReport['whatIf'][number], hosts: number): PolicySummary {
  const r = run.result;
  const base = r.baseline.p99;
  const capacityRemoved = r.probation?.capacityRemoved ?? 0;
  return {
    label: run.label,
    kind: typeof run.policy.kind === 'string' ? run.policy.kind : 'unknown',
    p99Ms: r.whatIf.p99,
    p99ChangeMs: {
      value: r.whatIf.p99.value - base,
      low: r.whatIf.p99.low - base,
      high: r.whatIf.p99.high - base,
    },
    extraLoad: r.extraLoad,
    capacityRemoved,
    extraMachines: r.extraLoad * hosts,
    removedMachines: capacityRemoved * hosts,
    clearGain: r.whatIf.p99.high < base,
  };
}

const machines = (p: PolicySummary): number => p.extraMachines + p.removedMachines;

/**
 * The policy to adopt: the largest clear p99 cut; among those whose intervals overlap it (gains
 * the data cannot tell apart), the cheapest in machines.
 */
function choose(policies: PolicySummary[]): PolicySummary | undefined {
  const clear = policies.filter((p) => p.clearGain).sort((a, b) => a.p99Ms.value - b.p99Ms.value);
  const best = clear[0];
  if (!best) return undefined;
  const alike = clear.filter((p) => p.p99Ms.low <= best.p99Ms.high);
  return alike.sort((a, b) => machines(a) - machines(b))[0] ?? best;
}

function recommendation(
  op: OperationReport,
  hosts: number,
  tailRequests: number,
  policies: PolicySummary[],
): OperationSummary['recommendation'] {
  if (tailRequests < MIN_TAIL_REQUESTS)
    return {
      verdict: 'insufficient-data',
      policy: null,
      reason: `only ${tailRequests} fan-out(s) above the p99 (at least ${MIN_TAIL_REQUESTS} needed): widen the range or wait for more traffic`,
    };
  if (hosts < 2)
    return {
      verdict: 'insufficient-data',
      policy: null,
      reason: `${hosts === 0 ? 'no host is known' : 'one host serves every call'}: no policy can route around a slow host, and the replay cannot tell one host from the fleet`,
    };
  const pick = choose(policies);
  if (!pick)
    return {
      verdict: 'keep',
      policy: null,
      reason: `no policy's p99 interval lies wholly below today's ${fmtMs(op.fanout.table1.allLeaves.p99)}: the data does not show a gain worth its cost`,
    };
  return {
    verdict: 'adopt',
    policy: pick.label,
    reason: `${pick.label}: p99 ${fmtMs(-pick.p99ChangeMs.value)} lower (interval ${fmtMs(-pick.p99ChangeMs.high)} to ${fmtMs(-pick.p99ChangeMs.low)}) for ${fmtMachines(machines(pick))} of ${hosts} machines`,
  };
}

function words(s: Omit<OperationSummary, 'text' | 'rank'>): string {
  const head = `${s.parentService} ${s.parentOperation} → ${s.leafService} ${s.leafOperation}: ${s.requests.toLocaleString('en-US')} fan-outs of width ${s.widthP50} over ${s.hosts} host(s). Today p99 ${fmtMs(s.tail.p99Ms)} (p50 ${fmtMs(s.tail.p50Ms)}, p99.9 ${fmtMs(s.tail.p999Ms)}; one call's p99 ${fmtMs(s.tail.oneCallP99Ms)}), ${s.tailRequests} fan-out(s) in the tail.`;
  const policies = s.policies.map((p) => {
    const cost = [
      `${fmtPct(p.extraLoad)} extra calls (${fmtMachines(p.extraMachines)} machines)`,
      ...(p.capacityRemoved > 0
        ? [`${fmtPct(p.capacityRemoved)} capacity out (${fmtMachines(p.removedMachines)} machines)`]
        : []),
    ].join(', ');
    return `${p.label}: p99 ${fmtMs(p.p99Ms.value)} [${fmtMs(p.p99Ms.low)}–${fmtMs(p.p99Ms.high)}], ${p.p99ChangeMs.value <= 0 ? '' : '+'}${fmtMs(p.p99ChangeMs.value)}, costs ${cost}.`;
  });
  const verdict =
    s.recommendation.verdict === 'adopt'
      ? `Recommendation: adopt ${s.recommendation.reason}.`
      : s.recommendation.verdict === 'keep'
        ? `Recommendation: keep as is; ${s.recommendation.reason}.`
        : `No recommendation: ${s.recommendation.reason}.`;
  return [head, ...policies, verdict].join(' ');
}

const ORDER = { adopt: 0, keep: 1, 'insufficient-data': 2 } as const;

export function summarizeReport(report: Pick<Report, 'operations'>): ReportSummary {
  const rows = report.operations.map((op) => {
    const f = op.fanout;
    const hosts = hostsOf(op);
    const tailRequests = op.stragglers.tailFanouts;
    const policies = op.whatIf.map((w) => policySummary(w, hosts));
    const s = {
      parentService: f.parentService,
      parentOperation: f.parentOperation,
      leafService: f.leafService,
      leafOperation: f.leafOperation,
      requests: f.requests,
      hosts,
      widthP50: f.width.p50,
      tail: {
        p50Ms: f.table1.allLeaves.p50,
        p99Ms: f.table1.allLeaves.p99,
        p999Ms: f.table1.allLeaves.p999,
        oneCallP99Ms: f.table1.oneLeaf.p99,
      },
      tailRequests,
      policies,
      recommendation: recommendation(op, hosts, tailRequests, policies),
    };
    return { ...s, text: words(s) };
  });
  const gain = (s: (typeof rows)[number]): number =>
    -(s.policies.find((p) => p.label === s.recommendation.policy)?.p99ChangeMs.value ?? 0);
  const ranked = [...rows]
    .sort(
      (a, b) =>
        ORDER[a.recommendation.verdict] - ORDER[b.recommendation.verdict] ||
        gain(b) - gain(a) ||
        b.tail.p99Ms - a.tail.p99Ms,
    )
    .map((s, i) => ({ rank: i + 1, ...s }));
  const capacity = summarizeCapacity(report.operations);
  return {
    operations: ranked,
    lines: ranked.map((s) => `${s.rank}. ${s.text}`),
    ...(capacity.length > 0 ? { capacity } : {}),
  };
}
