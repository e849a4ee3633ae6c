// One function per /api/v1 route the dashboard reads; each returns decoded, checked data.
import { getJson } from './client';
import {
  decodeFanouts,
  decodeStats,
  decodeStragglers,
  decodeTrace,
  type FanoutOp,
  type Stats,
  type Stragglers,
  type Trace,
} from './contracts';
import { decodeHosts, type HostWindows } from './hosts';
import type { TimeRange } from '../state/filters';

export interface OperationKey {
  leafService: string;
  leafOperation: string;
}

const range = (r: TimeRange) => ({ from: Math.floor(r.fromMs), to: Math.ceil(r.toMs) });

export function fetchStats(signal: AbortSignal): Promise<Stats> {
  return getJson('/api/v1/stats', {}, decodeStats, signal);
}

export async function fetchFanouts(
  r: TimeRange,
  opts: { parentService?: string; thresholdMs?: number },
  signal: AbortSignal,
): Promise<FanoutOp[]> {
  const res = await getJson('/api/v1/fanouts', { ...range(r), ...opts }, decodeFanouts, signal);
  return res.fanouts;
}

export function fetchStragglers(
  r: TimeRange,
  op: OperationKey,
  by: string,
  signal: AbortSignal,
): Promise<Stragglers> {
  return getJson('/api/v1/stragglers', { ...range(r), ...op, by }, decodeStragglers, signal);
}

export function fetchHosts(
  r: TimeRange,
  op: OperationKey,
  windowSeconds: number | undefined,
  signal: AbortSignal,
): Promise<HostWindows> {
  return getJson('/api/v1/hosts', { ...range(r), ...op, windowSeconds }, decodeHosts, signal);
}

export function fetchTrace(traceId: string, signal: AbortSignal): Promise<Trace> {
  return getJson(`/api/v1/traces/${encodeURIComponent(traceId)}`, {}, decodeTrace, signal);
}

/** A stable key for caches: the same request gets the same key. */
export function requestKey(name: string, parts: Record<string, unknown>): string {
  return `${name}:${JSON.stringify(parts, Object.keys(parts).sort())}`;
}
