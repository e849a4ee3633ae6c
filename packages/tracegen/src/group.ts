/**
 * Orders a batch's spans by resource (the OTLP request nests spans under their resource), keeping
 * generation order within a resource. Both encoders walk this order.
 */
import type { SpanBatch } from './batch';

export const SpanKindRef = { root: 0, client: 1, server: 2, background: 3 } as const;

export interface Grouped {
  /** Resources 0..rootHosts-1 are root hosts, then the leaf hosts. */
  resourceCount: number;
  /** Spans of resource g are order[groupOffset[g] .. groupOffset[g + 1] - 1]. */
  groupOffset: Uint32Array;
  kind: Uint8Array;
  ref: Uint32Array;
}

export function groupSpans(b: SpanBatch): Grouped {
  const roots = b.plan.rootHosts.length;
  const resourceCount = roots + b.plan.hosts.length;
  const n = b.spanCount;
  const spanRes = new Uint32Array(n);
  const spanKind = new Uint8Array(n);
  const spanRef = new Uint32Array(n);
  const clientServer = b.plan.spec.shape === 'client-server';
  let k = 0;
  const push = (res: number, kind: number, ref: number) => {
    spanRes[k] = res;
    spanKind[k] = kind;
    spanRef[k++] = ref;
  };
  for (let r = 0; r < b.requestCount; r++) {
    push(b.rootHost[r] ?? 0, SpanKindRef.root, r);
    const to = b.callOffset[r + 1] ?? 0;
    for (let c = b.callOffset[r] ?? 0; c < to; c++) {
      if (clientServer) push(b.rootHost[r] ?? 0, SpanKindRef.client, c);
      push(roots + (b.callHost[c] ?? 0), SpanKindRef.server, c);
    }
  }
  b.windows.forEach((w, i) => {
    push(roots + w.host, SpanKindRef.background, i);
  });

  // Counting sort by resource: stable, O(spans + resources).
  const groupOffset = new Uint32Array(resourceCount + 1);
  for (let i = 0; i < k; i++) {
    const g = (spanRes[i] ?? 0) + 1;
    groupOffset[g] = (groupOffset[g] ?? 0) + 1;
  }
  for (let g = 0; g < resourceCount; g++)
    groupOffset[g + 1] = (groupOffset[g + 1] ?? 0) + (groupOffset[g] ?? 0);
  const next = groupOffset.slice(0, resourceCount);
  const kind = new Uint8Array(k);
  const ref = new Uint32Array(k);
  for (let i = 0; i < k; i++) {
    const res = spanRes[i] ?? 0;
    const at = next[res] ?? 0;
    next[res] = at + 1;
    kind[at] = spanKind[i] ?? 0;
    ref[at] = spanRef[i] ?? 0;
  }
  return { resourceCount, groupOffset, kind, ref };
}
