import { HOST_KEYS } from '@tailscope/analysis';
import type { TraceSpan } from '../api/contracts';
import type { TimedSpan, TraceTree } from './trace-tree';

/** One call of a fan-out, measured as DESIGN.md "Definitions" says. */
export interface FanoutCall {
  /** The span whose duration is the call's latency (the CLIENT span, or a direct SERVER child). */
  measured: TimedSpan;
  /** The SERVER span answering it, when recorded. */
  server: TimedSpan | undefined;
  host: string;
  sharingMode: string;
  /** End minus the earliest start among the fan-out's calls, ms. */
  finishMs: number;
}

export interface TraceFanout {
  parent: TimedSpan;
  leafService: string;
  leafOperation: string;
  calls: FanoutCall[];
  /** Index in `calls` of the straggler: the latest finishing time. */
  straggler: number;
}

function attr(o: Record<string, unknown>, key: string): string | undefined {
  const v = o[key];
  return typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined;
}

/** Host of a call: the answering span's resource, then the client's `server.address`. */
export function hostOf(server: TraceSpan | undefined, client: TraceSpan | undefined): string {
  for (const k of HOST_KEYS) {
    const v = server ? attr(server.resource, k) : undefined;
    if (v !== undefined) return v;
  }
  return (client && attr(client.attributes, 'server.address')) ?? 'unknown';
}

function isKind(s: TraceSpan, kind: 'server' | 'client'): boolean {
  return s.kind.toLowerCase().replace('span_kind_', '') === kind;
}

function callOf(child: TimedSpan): { key: [string, string]; server: TimedSpan | undefined } | null {
  if (isKind(child.span, 'server'))
    return { key: [child.span.service, child.span.name], server: child };
  if (!isKind(child.span, 'client')) return null;
  const server = child.children.find((c) => isKind(c.span, 'server'));
  if (server) return { key: [server.span.service, server.span.name], server };
  const peer =
    attr(child.span.attributes, 'peer.service') ??
    attr(child.span.attributes, 'server.address') ??
    child.span.service;
  return { key: [peer, child.span.name], server: undefined };
}

function overlapsAny(calls: readonly TimedSpan[]): boolean {
  const sorted = [...calls].sort((a, b) => a.startMs - b.startMs);
  for (let i = 1; i < sorted.length; i++) {
    const prev = sorted[i - 1];
    const cur = sorted[i];
    if (prev && cur && cur.startMs < prev.endMs) return true;
  }
  return false;
}

/**
 * Fan-outs in one trace: a parent whose children include at least two overlapping calls to
 * the same (leaf service, leaf operation). Widest first.
 */
export function findFanouts(tree: TraceTree): TraceFanout[] {
  const out: TraceFanout[] = [];
  for (const parent of tree.byId.values()) {
    const groups = new Map<
      string,
      { key: [string, string]; calls: { m: TimedSpan; s: TimedSpan | undefined }[] }
    >();
    for (const child of parent.children) {
      const c = callOf(child);
      if (!c) continue;
      const k = `${c.key[0]}\u0000${c.key[1]}`;
      const g = groups.get(k) ?? { key: c.key, calls: [] };
      g.calls.push({ m: child, s: c.server });
      groups.set(k, g);
    }
    for (const g of groups.values()) {
      if (g.calls.length < 2 || !overlapsAny(g.calls.map((c) => c.m))) continue;
      const first = Math.min(...g.calls.map((c) => c.m.startMs));
      const calls = g.calls.map((c): FanoutCall => ({
        measured: c.m,
        server: c.s,
        host: hostOf(c.s?.span, isKind(c.m.span, 'client') ? c.m.span : undefined),
        sharingMode: attr((c.s ?? c.m).span.resource, 'host.sharing_mode') ?? 'unknown',
        finishMs: c.m.endMs - first,
      }));
      let straggler = 0;
      calls.forEach((c, i) => {
        if (c.finishMs > (calls[straggler]?.finishMs ?? -Infinity)) straggler = i;
      });
      out.push({ parent, leafService: g.key[0], leafOperation: g.key[1], calls, straggler });
    }
  }
  return out.sort((a, b) => b.calls.length - a.calls.length);
}
