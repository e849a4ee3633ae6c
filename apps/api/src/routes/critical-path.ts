import {
  API_PATHS,
  CRITICAL_PATH_MAX_ROOTS,
  CRITICAL_PATH_MIN_SLOW,
  CRITICAL_PATH_SAMPLE,
  CriticalPathRoute,
  type CriticalPathBand,
  type CriticalPathResponse,
} from '@tailscope/contracts';
import {
  addToBand,
  compareBands,
  emptyBand,
  markSyncAnswers,
  nameClientWaits,
  type BandTotals,
  type NamedPathSpan,
} from '@tailscope/analysis';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { ApiContext } from './context';
import { type RouteApp, parseRange, type TimeRange } from '../foundation';
import type { Store } from '../store';
import {
  sampleRoots,
  selectBusiestRoot,
  selectRootOperations,
  selectRootQuantiles,
  type RootFilter,
} from '../store/traces/roots';
import { selectPathSpans, type PathSpanRow } from '../store/traces/paths';
import { clampRange } from './clamp-range';
import { rangeSampling } from './sampling';

const BAND_QUANTILE: Record<CriticalPathBand, number> = {
  p90: 0.9,
  p95: 0.95,
  p99: 0.99,
  p999: 0.999,
};
/** Spans read for both bands together at most: 1,000 traces of 1,000 spans. */
const MAX_PATH_SPANS = 1_000_000;
const EXEMPLARS = 5;

type Root = Awaited<ReturnType<typeof sampleRoots>>['roots'][number];

/** Spans grouped per trace, times in ms from the trace's root start. */
function byTrace(roots: readonly Root[], rows: readonly PathSpanRow[]): NamedPathSpan[][] {
  const base = new Map(roots.map((r) => [r.traceId, BigInt(r.startNs)]));
  const out = new Map<string, (NamedPathSpan & { kind: string })[]>();
  for (const r of rows) {
    const t0 = base.get(r.traceId);
    if (t0 === undefined) continue;
    const span = {
      spanId: r.spanId,
      parentSpanId: r.parentSpanId,
      service: r.service,
      operation: r.operation,
      kind: r.kind,
      startMs: Number(r.startNs - t0) / 1e6,
      durationMs: r.durationNs / 1e6,
    };
    const list = out.get(r.traceId);
    if (list) list.push(span);
    else out.set(r.traceId, [span]);
  }
  return roots.map((r) => nameClientWaits(markSyncAnswers(out.get(r.traceId) ?? [])));
}

/** Spans walked between yields to the event loop (about 10 ms of work), so ingest keeps up. */
const SPANS_PER_SLICE = 20_000;

/**
 * A band's critical paths, yielding to the event loop between slices of traces; each trace
 * weighs its root's adjusted count when the roots carry one (weighted means).
 */
async function fillBand(
  traces: readonly NamedPathSpan[][],
  roots: readonly Root[],
): Promise<BandTotals> {
  const band = emptyBand();
  let spans = 0;
  for (const [i, t] of traces.entries()) {
    addToBand(band, t, roots[i]?.weight ?? 1);
    spans += t.length;
    if (spans >= SPANS_PER_SLICE) {
      spans = 0;
      await yieldToLoop();
    }
  }
  return band;
}

type RootOperations = CriticalPathResponse['roots'];

/**
 * Which root operation: as asked, else the busiest (of the service / with the name); with
 * neither, the busiest of the range's request roots (the list the page's selector shows).
 */
async function chooseRoot(
  store: Store,
  range: TimeRange,
  service: string | undefined,
  operation: string | undefined,
  roots: Promise<RootOperations>,
): Promise<{ service: string; operation: string } | null> {
  if (service !== undefined && operation !== undefined) return { service, operation };
  if (service === undefined && operation === undefined) {
    const top = (await roots)?.[0];
    return top ? { service: top.service, operation: top.operation } : null;
  }
  return selectBusiestRoot(store, { fromNs: range.fromNs, toNs: range.toNs, service, operation });
}

const nonEmpty = (v: string | undefined): string | undefined => (v === '' ? undefined : v);

export function criticalPathRoutes(app: RouteApp, ctx: ApiContext): void {
  app.get(API_PATHS.criticalPath.path, { schema: CriticalPathRoute }, async (req) => {
    const q = req.query;
    const band = q.band ?? 'p99';
    const range = await clampRange(ctx.store, parseRange(q, Date.now()));
    // Independent reads of the range, side by side on two cores.
    const rootList: Promise<RootOperations> =
      range.fromNs < range.toNs
        ? selectRootOperations(
            ctx.store,
            { fromNs: range.fromNs, toNs: range.toNs },
            CRITICAL_PATH_MAX_ROOTS,
          )
        : Promise.resolve([]);
    const [sampling, root, roots] = await Promise.all([
      rangeSampling(ctx.store, range),
      range.fromNs < range.toNs
        ? chooseRoot(ctx.store, range, nonEmpty(q.service), nonEmpty(q.operation), rootList)
        : null,
      rootList,
    ]);
    const answer = (over: Partial<CriticalPathResponse>): CriticalPathResponse => ({
      service: root?.service ?? '',
      operation: root?.operation ?? '',
      requests: 0,
      slow: { fromMs: 0, requests: 0, sampled: 0 },
      typical: { fromMs: 0, toMs: 0, requests: 0, sampled: 0 },
      entries: [],
      band,
      from: range.fromMs,
      to: range.toMs,
      exemplars: { slow: [], typical: [] },
      trusted: false,
      sampling,
      roots: roots ?? [],
      ...over,
    });
    const none = { warning: 'no request of this operation in the range' };
    if (!root) return answer(none);
    const scope: RootFilter = {
      fromNs: range.fromNs,
      toNs: range.toNs,
      ...root,
      ...(sampling.weighted ? { weighted: true } : {}),
    };
    const qs = await selectRootQuantiles(ctx.store, scope, BAND_QUANTILE[band]);
    if (qs.requests === 0) return answer(none);
    const ns = (v: number): bigint => BigInt(Math.round(v));
    const [slow, typical] = await Promise.all([
      sampleRoots(ctx.store, { ...scope, minDurationNs: ns(qs.slowNs) }, CRITICAL_PATH_SAMPLE),
      sampleRoots(
        ctx.store,
        { ...scope, minDurationNs: ns(qs.p40Ns), maxDurationNs: ns(qs.p60Ns) },
        CRITICAL_PATH_SAMPLE,
      ),
    ]);
    const all = [...slow.roots, ...typical.roots];
    const rows = await selectPathSpans(ctx.store, all, MAX_PATH_SPANS);
    const entries = compareBands(
      await fillBand(byTrace(slow.roots, rows), slow.roots),
      await fillBand(byTrace(typical.roots, rows), typical.roots),
    );
    const median = (qs.p40Ns + qs.p60Ns) / 2;
    const trusted = slow.requests >= CRITICAL_PATH_MIN_SLOW;
    const cut = rows.length >= MAX_PATH_SPANS;
    return answer({
      requests: qs.requests,
      slow: { fromMs: qs.slowNs / 1e6, requests: slow.requests, sampled: slow.roots.length },
      typical: {
        fromMs: qs.p40Ns / 1e6,
        toMs: qs.p60Ns / 1e6,
        requests: typical.requests,
        sampled: typical.roots.length,
      },
      entries,
      exemplars: {
        slow: [...slow.roots]
          .sort((a, b) => Number(b.durationNs) - Number(a.durationNs))
          .slice(0, EXEMPLARS)
          .map((r) => r.traceId),
        typical: [...typical.roots]
          .sort(
            (a, b) =>
              Math.abs(Number(a.durationNs) - median) - Math.abs(Number(b.durationNs) - median),
          )
          .slice(0, EXEMPLARS)
          .map((r) => r.traceId),
      },
      trusted: trusted && !cut,
      ...(trusted && !cut
        ? {}
        : {
            warning: cut
              ? `the sampled traces held more than ${MAX_PATH_SPANS} spans; the paths were computed on the first ones`
              : `only ${slow.requests} slow requests (fewer than ${CRITICAL_PATH_MIN_SLOW}): the slow band's means are noise; widen the range or pick a lower band`,
          }),
    });
  });
}
