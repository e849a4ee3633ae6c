/**
 * Background episodes aligned across hosts, for the synchronized-background policy.
 */

import type { LeafCalls } from '../../types';

/** Background episodes per host after alignment, as start-sorted intervals in epoch ms. */
export interface AlignedEpisodes {
  /** Host h's episodes are [hostStart[h], hostStart[h + 1]). */
  hostStart: Uint32Array;
  start: Float64Array;
  /** Running max of episode ends within a host, for O(log n) overlap tests. */
  maxEnd: Float64Array;
  episodes: number;
  hostsWithBackground: number;
}

interface Episode {
  host: number;
  kind: number;
  start: number;
  end: number;
}

/**
 * Reconstructs each host's background episodes from calls flagged as overlapping background
 * activity (flagged calls of one kind on one host closer than mergeGapMs form one episode),
 * then aligns them: per kind, every host's n-th episode is moved to start when the earliest
 * host's n-th episode started, keeping its length. O(flagged log flagged).
 */
export function alignBackgroundEpisodes(calls: LeafCalls, mergeGapMs: number): AlignedEpisodes {
  const flagged: Episode[] = [];
  const off = calls.fanoutOffsets;
  for (let f = 0; f + 1 < off.length; f++) {
    for (let i = off[f]!; i < off[f + 1]!; i++) {
      const kind = calls.background[i]!;
      if (kind === 0) continue;
      const start = calls.fanoutStartMs[f]! + calls.startMs[i]!;
      flagged.push({ host: calls.host[i]!, kind, start, end: start + calls.durationMs[i]! });
    }
  }
  flagged.sort((a, b) => a.kind - b.kind || a.host - b.host || a.start - b.start);
  // Merge into episodes, then number them per (kind, host).
  const episodes: (Episode & { n: number })[] = [];
  for (const c of flagged) {
    const last = episodes[episodes.length - 1];
    if (last?.kind === c.kind && last.host === c.host && c.start - last.end <= mergeGapMs) {
      last.end = Math.max(last.end, c.end);
    } else {
      const n = last?.kind === c.kind && last.host === c.host ? last.n + 1 : 0;
      episodes.push({ ...c, n });
    }
  }
  // Round start per (kind, n): the earliest start among hosts.
  const roundStart = new Map<string, number>();
  for (const e of episodes) {
    const key = `${e.kind}/${e.n}`;
    roundStart.set(key, Math.min(roundStart.get(key) ?? Number.POSITIVE_INFINITY, e.start));
  }
  const moved = episodes.map((e) => {
    const s = roundStart.get(`${e.kind}/${e.n}`) ?? e.start;
    return { host: e.host, start: s, end: s + (e.end - e.start) };
  });
  moved.sort((a, b) => a.host - b.host || a.start - b.start);
  const hosts = calls.hosts.length;
  const hostStart = new Uint32Array(hosts + 1);
  for (const e of moved) hostStart[e.host + 1]!++;
  let withBackground = 0;
  for (let h = 0; h < hosts; h++) {
    if (hostStart[h + 1]! > 0) withBackground++;
    hostStart[h + 1]! += hostStart[h]!;
  }
  const start = Float64Array.from(moved, (e) => e.start);
  const maxEnd = new Float64Array(moved.length);
  for (let k = 0; k < moved.length; k++) {
    const e = moved[k]!;
    const prev = k > 0 && moved[k - 1]!.host === e.host ? maxEnd[k - 1]! : -Infinity;
    maxEnd[k] = Math.max(prev, e.end);
  }
  return {
    hostStart,
    start,
    maxEnd,
    episodes: moved.length,
    hostsWithBackground: withBackground,
  };
}

/** Whether [a, b] (epoch ms) overlaps one of host h's aligned episodes. O(log episodes). */
export function overlapsEpisode(ep: AlignedEpisodes, h: number, a: number, b: number): boolean {
  let lo = ep.hostStart[h]!;
  let hi = ep.hostStart[h + 1]!; // find the last episode starting at or before b
  if (lo === hi) return false;
  while (lo < hi) {
    const m = (lo + hi) >>> 1;
    if (ep.start[m]! <= b) lo = m + 1;
    else hi = m;
  }
  const k = lo - 1;
  return k >= ep.hostStart[h]! && ep.maxEnd[k]! >= a;
}
