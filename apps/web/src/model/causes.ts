import type { FanoutOp, StragglerRow } from '../api/contracts';

/** A cause with the operation it was found for. */
export interface CauseRow extends StragglerRow {
  op: FanoutOp;
}

/**
 * The leaf operations to attribute, once each: attribution is asked per leaf (service,
 * operation), so two fan-out operations with the same leaf and different parents get the same
 * answer, and asking for both listed every cause twice. First occurrence kept, order kept.
 * Shared with the server's warm answers.
 */
export { distinctLeaves } from '@tailscope/contracts';

/** A cause explains time: significant (the server's flag), with stragglers, and a p99 drop > 0. */
export function explainsTime(r: StragglerRow): boolean {
  return r.cause && r.stragglers > 0 && Number.isFinite(r.p99DropMs) && r.p99DropMs > 0;
}

/**
 * The Overview's top causes: rows that explain time, each (leaf, dimension, value) once, by p99
 * drop then risk ratio. O(rows log rows).
 */
export function topCauses(answers: readonly { op: FanoutOp; rows: readonly StragglerRow[] }[]) {
  const seen = new Set<string>();
  const out: CauseRow[] = [];
  for (const { op, rows } of answers)
    for (const r of rows) {
      if (!explainsTime(r)) continue;
      const key = JSON.stringify([op.leafService, op.leafOperation, r.dimension, r.value]);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ ...r, op });
    }
  return out.sort((a, b) => b.p99DropMs - a.p99DropMs || b.riskRatio - a.riskRatio);
}
