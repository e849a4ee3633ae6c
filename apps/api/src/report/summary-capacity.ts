import type { CapacitySummary, OperationReport } from '@tailscope/contracts';
import { fmtMs } from './format';

/**
 * The report summary's capacity section (issue 29): per operation's requests, the root p99 and
 * each service's call p99 at 1x, 1.5x and 2x traffic with intervals, and the machines each
 * service needs to keep the root p99 under the objective (`--slo-ms`, default today's p99).
 * Pure: built from the report's own capacity runs.
 */
export function summarizeCapacity(ops: readonly OperationReport[]): CapacitySummary[] {
  const out: CapacitySummary[] = [];
  for (const op of ops) {
    const runs = op.capacity ?? [];
    const first = runs[0];
    if (!first) continue;
    const names = first.result.capacity?.services.map((s) => s.service) ?? [];
    const services = names.map((service) => ({
      service,
      at: runs.map((r) => {
        const cap = r.result.capacity;
        const s = cap?.services.find((x) => x.service === service);
        const counts = cap?.machinesForSlo?.counts;
        const instances = s?.instances ?? 0;
        return {
          factor: r.factor,
          p99Ms: s?.saturated === false && s.p99After ? s.p99After : null,
          // Without a search (today's traffic, objective today's p99): today's count keeps it.
          machines: counts ? (counts[service] ?? null) : r.factor === 1 ? instances : null,
          instances,
          saturated: s?.saturated ?? false,
          extrapolated: s?.extrapolated ?? false,
        };
      }),
    }));
    const root = runs.map((r) => ({
      factor: r.factor,
      p99Ms: r.result.capacity?.request.whatIf?.p99 ?? null,
      saturatesFirst: r.result.capacity?.saturatesFirst ?? null,
    }));
    const s = {
      leafService: op.fanout.leafService,
      leafOperation: op.fanout.leafOperation,
      sloMs: first.sloMs,
      root,
      services,
    };
    out.push({ ...s, text: words(s) });
  }
  return out;
}

const est = (e: { value: number; low: number; high: number } | null): string =>
  e ? `${fmtMs(e.value)} [${fmtMs(e.low)}–${fmtMs(e.high)}]` : 'saturates';

function words(s: Omit<CapacitySummary, 'text'>): string {
  const head = `Requests holding ${s.leafService} ${s.leafOperation}, objective root p99 ${fmtMs(s.sloMs)}: ${s.root
    .map((r) => `${r.factor}x root p99 ${est(r.p99Ms)}`)
    .join(', ')}.`;
  const rows = s.services.map(
    (v) =>
      `${v.service}: ${v.at
        .map(
          (a) =>
            `${a.factor}x p99 ${est(a.p99Ms)}${a.extrapolated ? ' (extrapolated)' : ''}, ${a.machines === null ? 'machines for the objective not found' : `${a.machines} machine(s) (today ${a.instances})`}`,
        )
        .join('; ')}.`,
  );
  return [head, ...rows].join(' ');
}
