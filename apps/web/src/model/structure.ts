// How a caller's repeated calls ran (#12, DESIGN.md "Definitions": Edge, Fan-out): the words the
// Fanouts page and the empty states use for structure, concurrency and queue wait.
import { formatCount, formatMs, formatPct } from '@tailscope/charts';
import type { Edge, EdgeStructureSummary, FanoutOp, Fanouts } from '../api/contracts';

type Structure = Edge['structure'];

/** A short name for a structure; a pool names its size when known. */
export function structureLabel(structure: Structure, poolSize?: number): string {
  switch (structure) {
    case 'parallel':
      return 'parallel';
    case 'pool':
      return poolSize !== undefined ? `pool of ${formatCount(poolSize)}` : 'pool';
    case 'sequential':
      return 'sequential loop';
    case 'single':
      return 'single call';
  }
}

export interface StructureSummary {
  label: string;
  detail: string;
}

/** One sentence on how the operation's calls ran; null from servers without the analysis. */
export function structureSummary(op: FanoutOp): StructureSummary | null {
  if (op.structure === undefined) return null;
  const n = formatCount(op.width.p50);
  const c = op.concurrency;
  const inFlight = c ? ` (concurrency p50 ${formatCount(c.p50)}, max ${formatCount(c.max)})` : '';
  if (op.structure === 'parallel')
    return {
      label: structureLabel('parallel'),
      detail: `The ${n} calls of a request run at once${inFlight}: a request waits for its slowest call.`,
    };
  const k = op.poolSize ?? c?.max;
  const wait = op.queueWaitMs
    ? ` A call waits for a worker ${formatMs(op.queueWaitMs.p50)} at the median and ${formatMs(op.queueWaitMs.p99)} at p99.`
    : '';
  return {
    label: structureLabel('pool', k),
    detail: `The ${n} calls of a request go through ${k !== undefined ? formatCount(k) : 'a few'} workers${inFlight}, so later calls wait for an earlier one to finish.${wait}`,
  };
}

/** Queue wait quantile rows of a pool, for a small table; empty when there is none. */
export function queueWaitRows(op: FanoutOp): { label: string; value: string }[] {
  const q = op.queueWaitMs;
  if (!q) return [];
  return [
    { label: '50%ile', value: formatMs(q.p50) },
    { label: '95%ile', value: formatMs(q.p95) },
    { label: '99%ile', value: formatMs(q.p99) },
    { label: '99.9%ile', value: formatMs(q.p999) },
  ];
}

export interface EmptyFanouts {
  title: string;
  /** Why none was found: the API's hint, else what a fan-out needs. */
  why: string;
  edges: { key: string; from: string; to: string; requests: string; structure: string }[];
}

const NO_HINT =
  'A fan-out is a span with two or more overlapping calls to the same operation; none was found in this range.';

/** The empty state of /api/v1/fanouts: the server's reason and the edges it did find. */
export function emptyFanouts(answer: Pick<Fanouts, 'hint' | 'edges'>): EmptyFanouts {
  const edges: EdgeStructureSummary[] = [...(answer.edges ?? [])].sort(
    (a, b) => b.requests - a.requests,
  );
  return {
    title: 'No fan-outs in this time range',
    why: answer.hint ?? NO_HINT,
    edges: edges.map((e) => ({
      key: edgeKey(e),
      from: `${e.parentService} ${e.parentOperation}`,
      to: `${e.leafService} ${e.leafOperation}`,
      requests: formatCount(e.requests),
      structure: structureLabel(e.structure),
    })),
  };
}

function edgeKey(
  e: Pick<Edge, 'parentService' | 'parentOperation' | 'leafService' | 'leafOperation'>,
) {
  return [e.parentService, e.parentOperation, e.leafService, e.leafOperation].join('\u0000');
}

export interface EdgeRow {
  key: string;
  from: string;
  to: string;
  requests: string;
  callsPerRequest: string;
  structure: string;
  concurrency: string;
  callP50: string;
  callP99: string;
  shareP50: string;
  /** Repeated calls (at least 2 in some request): listed first. */
  repeated: boolean;
}

/** Rows of the edges table: repeated calls first, then by requests. */
export function edgeRows(edges: readonly Edge[]): EdgeRow[] {
  return [...edges]
    .sort(
      (a, b) =>
        Number(b.callsPerRequest.max >= 2) - Number(a.callsPerRequest.max >= 2) ||
        b.requests - a.requests,
    )
    .map((e) => ({
      key: edgeKey(e),
      from: `${e.parentService} ${e.parentOperation}`,
      to: `${e.leafService} ${e.leafOperation}`,
      requests: formatCount(e.requests),
      callsPerRequest: `${formatCount(e.callsPerRequest.p50)} / ${formatCount(e.callsPerRequest.max)}`,
      structure: structureLabel(e.structure, e.poolSize),
      concurrency: `${formatCount(e.concurrency.p50)} / ${formatCount(e.concurrency.max)}`,
      callP50: formatMs(e.callLatency.p50),
      callP99: formatMs(e.callLatency.p99),
      shareP50: formatPct(e.shareOfParent.p50),
      repeated: e.callsPerRequest.max >= 2,
    }));
}
