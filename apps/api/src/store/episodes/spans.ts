import { callBucketCoverage } from '../call-buckets/cache';
import { CALL_BUCKET_NS, SPLIT_BUCKETS_TABLE } from '../call-buckets/tables';
import type { Store } from '../engine/client';
import { sql, type Sql } from '../sql/template';
import {
  liveSpanSplitSql,
  MAX_SPLIT_NAMES,
  MAX_SPLIT_RANGE_NS,
  storedSpanSplitSql,
  storedSplitMarksSql,
  type SpanSplitQuery,
  type SpanSplitRow,
  type SumRow,
} from './split-sql';

/**
 * Evidence from spans with no metrics (docs/metrics.md "Evidence from spans"): per (callee
 * service, host, window), the calls answered by a SERVER span whose parent is a CLIENT span,
 * with the sums of the client's duration, the server span's own and the client's time outside
 * it (client - server, floored at 0: the incidents' `network` split). The server span's host
 * is the episode's host (the callee series' host). A call belongs to the window of its server
 * span's start; a duplicated client span joins once (ANY). A SERVER span with no CLIENT parent
 * starting within CLIENT_LEAD_NS of it (called straight from its caller's span) is its own
 * call: client = server, nothing outside. The client is looked for around its server's start,
 * not in the range asked, so a server's split is the same whatever range it is read in: that
 * is what lets it be stored per 10 s bucket.
 *
 * Stored: the split of every server span of a chunk (or open bucket) is built with that
 * chunk's episode series (call-buckets/cache.ts, open.ts) under the same version, per (service,
 * host, 10 s bucket) into `tailscope_span_split_buckets` (migration 13), and is current exactly
 * when they are: a server's split depends on the spans of its trace within CLIENT_LEAD_NS of
 * its start, inside the chunk's (or bucket's) window plus the edge margin their records count.
 * A read takes the buckets the episode series' coverage names from the table (when each has
 * its mark: a version built without the split is read live) and the rest live; the sums add
 * exactly (integers). Live alone, the span evidence of the last hour at 10M spans took ~0.5 s.
 *
 * Only the client spans whose 64-bit key of (trace, span id) is some server span's (trace,
 * parent id) key are read into the join; the join still matches on the ids themselves, so a
 * hash collision only adds a row that joins nothing. Reading every client span of the servers'
 * traces instead (a join of ~1.5M rows at 10M spans) cost a third more (bench:incidents' store:
 * 344 -> 227 ms median). Computing the servers once as a stage saved nothing measurable.
 */

export {
  CLIENT_LEAD_NS,
  MAX_SPLIT_NAMES,
  MAX_SPLIT_RANGE_NS,
  type SpanSplitQuery,
  type SpanSplitRow,
} from './split-sql';

/** Whether the store has the split's table (migration 13; read once per store). */
const splitTables = new WeakMap<Store, Promise<boolean>>();
function hasSplitTable(store: Store): Promise<boolean> {
  let p = splitTables.get(store);
  if (!p) {
    p = store
      .query<{ n: string }>(
        sql`SELECT toString(count()) AS n FROM system.tables
          WHERE database = currentDatabase() AND name = ${SPLIT_BUCKETS_TABLE}`,
      )
      .then((rows) => rows[0]?.n === '1');
    p.catch(() => splitTables.delete(store));
    splitTables.set(store, p);
  }
  return p;
}

/**
 * Which parts of [from, to) come from where: the stored buckets of the covered run (whole
 * buckets inside the range, read when the window is a multiple of 10 s and every one of them
 * was built with its split), live the rest.
 */
export async function spanSplitQueries(store: Store, q: SpanSplitQuery): Promise<Sql[]> {
  const B = CALL_BUCKET_NS;
  const storedFrom = ((q.fromNs + B - 1n) / B) * B;
  const end = (q.toNs / B) * B;
  if (
    q.windowNs % B !== 0n ||
    storedFrom >= end ||
    !store.accelerators.callBuckets ||
    !(await hasSplitTable(store))
  )
    return [liveSpanSplitSql(q)];
  const cov = await callBucketCoverage(store, { fromNs: storedFrom, toNs: end });
  const storedTo = (cov.splitNs / B) * B;
  if (storedTo <= storedFrom) return [liveSpanSplitSql(q)];
  const stored = { fromNs: storedFrom, toNs: storedTo };
  const marks = await store.query<{ n: string }>(storedSplitMarksSql(stored, cov));
  if (marks[0]?.n !== String((storedTo - storedFrom) / B)) return [liveSpanSplitSql(q)];
  const out = [storedSpanSplitSql({ ...q, ...stored }, cov)];
  if (q.fromNs < storedFrom) out.push(liveSpanSplitSql({ ...q, toNs: storedFrom }));
  if (storedTo < q.toNs) out.push(liveSpanSplitSql({ ...q, fromNs: storedTo }));
  return out;
}

/** Byte order of two names, as the engine's ORDER BY. */
const byBytes = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** Per (service, host, window) sums of the span split over [from, to), clamped to a day. */
export async function selectSpanSplit(store: Store, q: SpanSplitQuery): Promise<SpanSplitRow[]> {
  if (q.services.length === 0 || q.hosts.length === 0 || q.toNs <= q.fromNs) return [];
  const fromNs = q.toNs - q.fromNs > MAX_SPLIT_RANGE_NS ? q.toNs - MAX_SPLIT_RANGE_NS : q.fromNs;
  const scope = {
    ...q,
    fromNs,
    services: [...q.services].slice(0, MAX_SPLIT_NAMES),
    hosts: [...q.hosts].slice(0, MAX_SPLIT_NAMES),
  };
  const parts = await Promise.all(
    (await spanSplitQueries(store, scope)).map((x) => store.query<SumRow>(x)),
  );
  // Rows of one (service, host, window) from several parts add (integer sums of ns); a single
  // part is in the engine's order already.
  let rows = parts.flat();
  if (parts.length > 1) {
    const sums = new Map<string, { r: SumRow; n: bigint[] }>();
    for (const r of rows) {
      const key = `${r.service}\0${r.host}\0${String(r.window)}`;
      const add = [r.calls, r.clientNs, r.serverNs, r.outsideNs].map((v) => BigInt(v));
      const s = sums.get(key);
      if (s) s.n = s.n.map((v, i) => v + (add[i] as bigint));
      else sums.set(key, { r, n: add });
    }
    rows = [...sums.values()]
      .map(({ r, n }) => ({
        ...r,
        calls: String(n[0]),
        clientNs: String(n[1]),
        serverNs: String(n[2]),
        outsideNs: String(n[3]),
      }))
      .sort(
        (a, b) =>
          byBytes(a.service, b.service) ||
          byBytes(a.host, b.host) ||
          Number(a.window) - Number(b.window),
      )
      .slice(0, q.maxRows);
  }
  return rows.map((r) => ({
    service: r.service,
    host: r.host,
    window: Number(r.window),
    calls: Number(r.calls),
    clientMs: Number(r.clientNs) / 1e6,
    serverMs: Number(r.serverNs) / 1e6,
    outsideMs: Number(r.outsideNs) / 1e6,
  }));
}
