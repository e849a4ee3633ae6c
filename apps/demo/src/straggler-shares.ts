/**
 * A plain check of the demo's raw spans, independent of packages/analysis: for each fan-out
 * (a root SERVER span), which leaf call finished last, and what was true of it (its host's
 * sharing mode and role, whether it overlapped a background activity on its host). Compared with
 * the same shares over all calls, it shows whether a cause is overrepresented among stragglers.
 */

export interface RawSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  /** 2 = SERVER, 3 = CLIENT (OTLP enum). */
  kind: number;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, string>;
  resource: Record<string, string>;
}

export interface CallFacts {
  host: string;
  mode: string;
  role: string;
  /** Background activity kinds overlapping the call on its host (`none` if none). */
  activity: string;
}

export interface ShareRow {
  dimension: 'mode' | 'role' | 'activity' | 'host';
  value: string;
  calls: number;
  stragglers: number;
  trafficShare: number;
  stragglerShare: number;
  /** stragglerShare / trafficShare: above 1 means overrepresented among stragglers. */
  lift: number;
}

export interface StragglerReport {
  fanouts: number;
  calls: number;
  rows: ShareRow[];
}

const SERVER = 2;
const CLIENT = 3;

/** O(spans log spans). Hedge backups and shadows are left out: a fan-out is its primary calls. */
export function stragglerShares(spans: readonly RawSpan[]): StragglerReport {
  const byParent = new Map<string, RawSpan[]>();
  const activities = new Map<string, { start: bigint; end: bigint; kind: string }[]>();
  for (const s of spans) {
    const kind = s.attributes['background.activity'];
    if (kind !== undefined) {
      const host = s.resource['host.name'] ?? 'unknown';
      const list = activities.get(host) ?? [];
      list.push({ start: s.startNs, end: s.endNs, kind });
      activities.set(host, list);
    }
    if (s.parentSpanId) {
      const key = `${s.traceId}/${s.parentSpanId}`;
      const list = byParent.get(key) ?? [];
      list.push(s);
      byParent.set(key, list);
    }
  }
  const facts = (call: RawSpan): CallFacts => {
    const server = (byParent.get(`${call.traceId}/${call.spanId}`) ?? []).find(
      (c) => c.kind === SERVER,
    );
    const host = server?.resource['host.name'] ?? call.attributes['server.address'] ?? 'unknown';
    const kinds = new Set<string>();
    for (const a of activities.get(host) ?? []) {
      if (a.start < call.endNs && a.end > call.startNs) kinds.add(a.kind);
    }
    return {
      host,
      mode: server?.resource['host.sharing_mode'] ?? 'unknown',
      role: server?.resource['tailscope.demo.role'] ?? 'unknown',
      activity: kinds.size === 0 ? 'none' : [...kinds].sort().join('+'),
    };
  };
  const counts = new Map<string, { calls: number; stragglers: number }>();
  const bump = (f: CallFacts, straggler: boolean) => {
    for (const [dim, value] of [
      ['mode', f.mode],
      ['role', f.role],
      ['activity', f.activity],
      ['host', f.host],
    ] as const) {
      const key = `${dim}\u0000${value}`;
      const c = counts.get(key) ?? { calls: 0, stragglers: 0 };
      c.calls++;
      if (straggler) c.stragglers++;
      counts.set(key, c);
    }
  };
  let fanouts = 0;
  let calls = 0;
  for (const root of spans) {
    if (root.kind !== SERVER || root.resource['service.name'] !== 'demo-root') continue;
    const children = (byParent.get(`${root.traceId}/${root.spanId}`) ?? []).filter(
      (c) =>
        c.kind === CLIENT &&
        c.attributes['tailscope.hedge'] !== 'backup' &&
        c.attributes['tailscope.shadow'] !== 'true',
    );
    if (children.length < 2) continue;
    fanouts++;
    let last = children[0];
    for (const c of children) if (last && c.endNs > last.endNs) last = c;
    for (const c of children) {
      calls++;
      bump(facts(c), c === last);
    }
  }
  const rows: ShareRow[] = [];
  for (const [key, c] of counts) {
    const [dimension, value] = key.split('\u0000') as [ShareRow['dimension'], string];
    const trafficShare = calls === 0 ? 0 : c.calls / calls;
    const stragglerShare = fanouts === 0 ? 0 : c.stragglers / fanouts;
    rows.push({
      dimension,
      value,
      calls: c.calls,
      stragglers: c.stragglers,
      trafficShare,
      stragglerShare,
      lift: trafficShare === 0 ? 0 : stragglerShare / trafficShare,
    });
  }
  rows.sort((a, b) => a.dimension.localeCompare(b.dimension) || b.lift - a.lift);
  return { fanouts, calls, rows };
}
