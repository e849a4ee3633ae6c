import { criticalPath, markSyncAnswers } from '../critical-path';
import { addCall, foldQueueWaits, foldSharedWaits, type CallStats, type Component } from './folds';

export type { Component } from './folds';

/**
 * Root-cause candidates of an incident, ranked by where its extra time originates (DESIGN.md
 * "Definitions": Incident; docs/analysis.md "Incidents").
 *
 * Each trace's critical path (critical-path.ts) is cut into components by who owned each stretch:
 * - `self`: a span's own time (no child running) in its (service, host, operation): a callee
 *   whose own time rose while its callees' did not shows here, its callees' time being theirs;
 * - `network`: a call span's own time while its SERVER (or CONSUMER) answer was not running:
 *   the network, a queue in front of the callee, or a callee starved of CPU before its span
 *   started; named by the callee (service, host);
 * - `uninstrumented`: a CLIENT or PRODUCER span with no answer, timed by the caller's process:
 *   its time cannot be split between the callee, the network and the caller's own process.
 *   When the caller's own self time (the span it was called from) rose by at least `foldRatio`
 *   too, one slow process explains both, and the call's extra time counts for the caller (the
 *   planted `microservices` fault slows customer-00's own work and its MySQL call alike); a rise
 *   with the caller steady stays the callee's candidate.
 * Per component, the mean critical-path ms per slow request against per typical request (a
 * request where it is not on the path counts 0); `score` = the component's extra ms over the sum
 * of every component's extra ms (positive deltas only), so scores are shares of the extra time
 * in [0, 1]. Candidates whose scores lie within `tieMargin` cannot be told apart and say so.
 */

/** One span of a trace as the ranking reads it; times in ms on one clock. */
export interface CauseSpan {
  spanId: string;
  parentSpanId: string;
  service: string;
  operation: string;
  /** Span kind as stored, any spelling (`Server`, `SPAN_KIND_SERVER`). */
  kind: string;
  /** The span's resource host ('' when none). */
  host: string;
  /** Who a call without an answer calls: `peer.service`, else `server.address` ('' if none). */
  peer: string;
  startMs: number;
  durationMs: number;
}

export type CauseKind = 'self' | 'network' | 'uninstrumented';

export interface CauseEvidence {
  kind: CauseKind;
  /** Mean critical-path ms of the component per slow / typical request. */
  slowMs: number;
  typicalMs: number;
  deltaMs: number;
  /** slowMs / typicalMs (Infinity-safe: typical floored at 1 us). */
  ratio: number;
  slowRequests: number;
  typicalRequests: number;
  /** Extra ms of uninstrumented calls folded into this (caller's) candidate. */
  foldedMs: number;
  /** Extra ms its callers waited just before calling it (a pool or lock it kept busy). */
  queuedMs?: number;
  /** Extra ms of its waits on several callees' answers, which rose together with its own time. */
  waitsMs?: number;
  /** Candidates (`service host operation`) whose score is within the tie margin of this one. */
  tiedWith: string[];
  /** The host's metric signal that explains it (evidence.ts), when one fired. */
  metric?: { signal: string; metric?: string; value: number; baseline: number; ratio: number };
}

export interface RootCause {
  service: string;
  host?: string;
  operation?: string;
  /** Share (0..1) of the incident's extra critical-path time this candidate explains. */
  score: number;
  cause: string;
  evidence: CauseEvidence;
}

export interface RankOptions {
  /** Scores closer than this cannot be told apart (default 0.1). */
  tieMargin?: number;
  /** Caller's self-time ratio from which an uninstrumented call folds into it (default 1.5). */
  foldRatio?: number;
  /** Candidates below this score are dropped (default 0.05). */
  minScore?: number;
  /** Most candidates returned (default 5). */
  maxCandidates?: number;
}

export const CAUSE_TIE_MARGIN = 0.1;

const kindName = (kind: string): string => kind.toLowerCase().replace(/^span_kind_/, '');
const isAnswer = (kind: string): boolean => ['server', 'consumer'].includes(kindName(kind));
const isCall = (kind: string): boolean => ['client', 'producer'].includes(kindName(kind));

const selfKey = (s: CauseSpan): string =>
  `self\u0000${s.service}\u0000${s.host}\u0000${s.operation}`;

/** Adds one trace's critical path, per component, to `into` (band = slow or typical). */
export function addTrace(
  into: Map<string, Component>,
  spans: readonly CauseSpan[],
  band: 'slow' | 'typical',
  callStats?: CallStats,
): void {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const answer = new Map<string, CauseSpan>();
  for (const s of spans)
    if (isAnswer(s.kind) && s.parentSpanId !== '') {
      const seen = answer.get(s.parentSpanId);
      if (!seen || s.startMs < seen.startMs) answer.set(s.parentSpanId, s);
    }
  // Who a span calls: its answer, or through a chain of single-child wrappers (HotROD's
  // `HTTP GET: /route` over its INTERNAL `HTTP GET` call), at most 4 deep.
  const kids = new Map<string, CauseSpan[]>();
  for (const s of spans) {
    const list = kids.get(s.parentSpanId);
    if (list) list.push(s);
    else kids.set(s.parentSpanId, [s]);
  }
  const calleeOf = (s: CauseSpan, depth = 0): CauseSpan | undefined => {
    const direct = answer.get(s.spanId);
    const only = kids.get(s.spanId);
    if (direct || depth >= 4 || only?.length !== 1 || !only[0]) return direct;
    return calleeOf(only[0], depth + 1);
  };
  // Every call's time as its caller saw it and its answer's, per callee service (the queue
  // fold judges callees per call).
  if (callStats)
    for (const s of spans) {
      const a = answer.get(s.spanId);
      if (a && a.service !== s.service && !isAnswer(s.kind))
        addCall(callStats, s.service, a.service, band, s.durationMs, a.durationMs);
    }
  // Calls per (caller span, callee service): a wait before one of several calls to a service
  // may be a wait for a worker; before a lone call it is the caller's own work.
  const calls = new Map<string, number>();
  for (const s of spans) {
    const to = calleeOf(s);
    if (to && to.service !== s.service) {
      const k = `${s.parentSpanId}\u0000${to.service}`;
      calls.set(k, (calls.get(k) ?? 0) + 1);
    }
  }
  const pieces = criticalPath(markSyncAnswers(spans)).pieces;
  pieces.forEach((piece, i) => {
    const s = byId.get(piece.spanId);
    const ms = piece.toMs - piece.fromMs;
    if (!s || ms <= 0) return;
    const callee = answer.get(s.spanId);
    // The next stretch of the path is a call this span makes, starting as this stretch ends.
    // The next stretch's span, or the single-child wrapper above it, is a child of this one.
    let next = byId.get(pieces[i + 1]?.spanId ?? '');
    for (let d = 0; d < 4 && next && next.parentSpanId !== s.spanId; d++) {
      const up = byId.get(next.parentSpanId);
      next = up && kids.get(up.spanId)?.length === 1 ? up : undefined;
    }
    const nextCallee = next ? calleeOf(next) : undefined;
    const queued =
      next?.parentSpanId === s.spanId &&
      nextCallee !== undefined &&
      nextCallee.service !== s.service &&
      (calls.get(`${s.spanId}\u0000${nextCallee.service}`) ?? 0) >= 2 &&
      Math.abs(next.startMs - piece.toMs) < 1e-6;
    let key: string;
    let c: Omit<Component, 'slow' | 'typical'>;
    if (callee && callee.service !== s.service) {
      const parent = byId.get(s.parentSpanId);
      key = `network\u0000${callee.service}\u0000${callee.host}\u0000${s.service}\u0000${s.host}`;
      c = {
        kind: 'network',
        service: callee.service,
        host: callee.host,
        operation: '',
        from: { service: s.service, host: s.host },
        ...(parent ? { caller: selfKey(parent) } : {}),
      };
    } else if (!callee && isCall(s.kind)) {
      const parent = byId.get(s.parentSpanId);
      const peer = s.peer !== '' ? s.peer : s.operation;
      key = `uninstrumented\u0000${peer}\u0000${s.service}\u0000${s.host}\u0000${s.operation}`;
      c = {
        kind: 'uninstrumented',
        service: peer,
        host: s.host,
        operation: s.operation,
        ...(parent ? { caller: selfKey(parent) } : {}),
      };
    } else if (queued && !isCall(s.kind)) {
      key = `queue\u0000${nextCallee.service}\u0000${selfKey(s)}`;
      c = { kind: 'self', service: s.service, host: s.host, operation: s.operation };
      c.caller = selfKey(s);
      c.queueFor = nextCallee.service;
    } else {
      key = selfKey(s);
      c = { kind: 'self', service: s.service, host: s.host, operation: s.operation };
    }
    let acc = into.get(key);
    if (!acc) into.set(key, (acc = { ...c, slow: 0, typical: 0 }));
    acc[band] += ms;
  });
}

const label = (c: { service: string; host: string; operation: string }): string =>
  [c.service, c.host, c.operation].filter((x) => x !== '').join(' ');

const fmt = (ms: number): string => (ms >= 10 ? ms.toFixed(0) : ms.toPrecision(2));

function describe(c: Component, e: Omit<CauseEvidence, 'tiedWith'>): string {
  const on = c.host !== '' ? ` on ${c.host}` : '';
  const rise = `${fmt(e.deltaMs)} ms per slow request on the critical path (${fmt(e.typicalMs)} -> ${fmt(e.slowMs)} ms, x${e.ratio.toFixed(1)})`;
  switch (c.kind) {
    case 'network':
      return `network or queueing before ${c.service}${on}: callers' wait outside ${c.service}'s server span rose by ${rise}; the server span did not account for it`;
    case 'uninstrumented':
      return `calls to ${c.service} (no server span; timed by ${c.host || 'the caller'}) rose by ${rise}: the callee, the network to it or the caller's process`;
    default:
      return `${c.service}${on} (${c.operation}): its own time, no callee running, rose by ${rise}${e.foldedMs > 0 ? `, counting ${fmt(e.foldedMs)} ms of its uninstrumented calls, which rose with it` : ''}${(e.queuedMs ?? 0) > 0 ? `, counting ${fmt(e.queuedMs ?? 0)} ms its callers waited before calling it (a pool or lock it kept busy)` : ''}${(e.waitsMs ?? 0) > 0 ? `, counting ${fmt(e.waitsMs ?? 0)} ms more it took to take several callees' answers, which rose together (its own process, not their network)` : ''}`;
  }
}

/**
 * Candidates ranked by score (see the module comment), largest first (ties by label). Empty
 * when either band is empty or nothing got slower. O(S log S) for S spans in all.
 */
export function rankRootCauses(
  slow: readonly (readonly CauseSpan[])[],
  typical: readonly (readonly CauseSpan[])[],
  opts: RankOptions = {},
): RootCause[] {
  const tieMargin = opts.tieMargin ?? CAUSE_TIE_MARGIN;
  const foldRatio = opts.foldRatio ?? 1.5;
  const minScore = opts.minScore ?? 0.05;
  const maxCandidates = opts.maxCandidates ?? 5;
  if (slow.length === 0 || typical.length === 0) return [];
  const comps = new Map<string, Component>();
  const calls: CallStats = new Map();
  for (const t of slow) addTrace(comps, t, 'slow', calls);
  for (const t of typical) addTrace(comps, t, 'typical', calls);
  const mean = (c: Component) => ({ s: c.slow / slow.length, t: c.typical / typical.length });
  const ratioOf = (s: number, t: number): number => s / Math.max(t, 1e-3);
  const queued = foldQueueWaits(comps, mean, foldRatio, calls);
  const waits = foldSharedWaits(comps, mean, foldRatio, calls);
  // Fold uninstrumented calls into a caller whose own time rose with them.
  const folded = new Map<string, number>();
  for (const [key, c] of comps) {
    if (c.kind !== 'uninstrumented' || c.caller === undefined) continue;
    const caller = comps.get(c.caller);
    if (!caller) continue;
    const m = mean(caller);
    if (m.s - m.t > 0 && ratioOf(m.s, m.t) >= foldRatio) {
      const d = mean(c);
      folded.set(c.caller, (folded.get(c.caller) ?? 0) + (d.s - d.t));
      caller.slow += c.slow;
      caller.typical += c.typical;
      comps.delete(key);
    }
  }
  const rows = [...comps].map(([key, c]) => {
    const m = mean(c);
    return { key, c, slowMs: m.s, typicalMs: m.t, deltaMs: m.s - m.t };
  });
  const total = rows.reduce((sum, r) => sum + Math.max(0, r.deltaMs), 0);
  if (!(total > 0)) return [];
  const ranked = rows
    .filter((r) => r.deltaMs > 0)
    .map((r) => ({ ...r, score: r.deltaMs / total, label: label(r.c) }))
    .sort((a, b) => b.score - a.score || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0))
    .filter((r) => r.score >= minScore)
    .slice(0, maxCandidates);
  return ranked.map((r) => {
    const base: Omit<CauseEvidence, 'tiedWith'> = {
      kind: r.c.kind,
      slowMs: r.slowMs,
      typicalMs: r.typicalMs,
      deltaMs: r.deltaMs,
      ratio: ratioOf(r.slowMs, r.typicalMs),
      slowRequests: slow.length,
      typicalRequests: typical.length,
      foldedMs: folded.get(r.key) ?? 0,
      ...(queued.has(r.key) ? { queuedMs: queued.get(r.key) ?? 0 } : {}),
      ...(waits.has(r.key) ? { waitsMs: waits.get(r.key) ?? 0 } : {}),
    };
    const tiedWith = ranked
      .filter((o) => o !== r && Math.abs(o.score - r.score) < tieMargin)
      .map((o) => o.label);
    const tie =
      tiedWith.length > 0
        ? `; cannot be told apart from ${tiedWith.join(', ')} (scores within ${tieMargin})`
        : '';
    return {
      service: r.c.service,
      ...(r.c.host !== '' ? { host: r.c.host } : {}),
      ...(r.c.operation !== '' ? { operation: r.c.operation } : {}),
      score: r.score,
      cause: describe(r.c, base) + tie,
      evidence: { ...base, tiedWith },
    };
  });
}
