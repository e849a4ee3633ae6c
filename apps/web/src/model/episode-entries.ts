import type { Episode } from '../api/episodes';

/** One entry of the Overview's episode list: an episode and the callers that slowed with it. */
export interface EpisodeEntry {
  episode: Episode;
  /** Episodes of calls into this episode's caller over an overlapping window, worst first. */
  callers: Episode[];
  /**
   * Episodes of calls this episode's service made, over an overlapping window, into a callee
   * that sends no server spans (a database seen only from its caller): part of this service's
   * own time, since traces cannot tell the callee's time from the caller's.
   */
  within?: Episode[];
}

/** A callee seen only through its callers' client spans: no server span of its own. */
const unseenCallee = (e: Episode): boolean => (e.spanEvidence?.calls ?? 0) === 0;
/** Calls whose server spans exist and grew over the episode. */
const ownTimeGrew = (e: Episode): boolean =>
  e.spanEvidence !== undefined &&
  e.spanEvidence.calls > 0 &&
  e.spanEvidence.serverMs > e.spanEvidence.baselineServerMs;

const overlaps = (a: Episode, b: Episode): boolean => a.fromMs < b.toMs && b.fromMs < a.toMs;

/**
 * One fault, one entry (issue 24). A slow callee makes its caller slow in the same window, so
 * the microservices fault (customer's database) was listed twice: calls from customer into
 * mysql, and calls from frontend into customer. An episode of calls into service S is listed
 * under an episode of calls that S made (its `parentService` is S) over an overlapping window,
 * following the chain down to the deepest callee; the rest stay entries of their own. A callee
 * that sends no server spans (mysql in the microservices preset) is the exception: when the
 * caller's own server spans grew, the callee's episode is listed within the caller's (its time
 * is part of the caller's as traces see it), so the entry names the service whose spans show
 * the fault, as the incidents' ranking does. Input
 * order (the API's, worst first) is kept. O(n²) in episodes (the API returns at most a few
 * hundred).
 */
export function episodeEntries(episodes: readonly Episode[]): EpisodeEntry[] {
  // The episode a caller's episode is listed under: one of calls its service made, overlapping.
  const under = new Map<Episode, Episode>();
  const within = new Map<Episode, Episode>();
  for (const e of episodes) {
    const callees = episodes.filter(
      (d) => d !== e && d.parentService === e.service && d.service !== e.service && overlaps(d, e),
    );
    const seen = callees.find((d) => !(unseenCallee(d) && ownTimeGrew(e)));
    if (seen) under.set(e, seen);
    else for (const d of callees) if (!within.has(d)) within.set(d, e);
  }
  // Services calling each other in a loop fold nothing: each such episode stays its own entry.
  const rootOf = (e: Episode): Episode => {
    let at = e;
    const seen = new Set<Episode>([e]);
    for (let next = under.get(at); next !== undefined; next = under.get(at)) {
      if (seen.has(next)) return e;
      seen.add(next);
      at = next;
    }
    return at;
  };
  const entries = new Map<Episode, EpisodeEntry>();
  const entryOf = (root: Episode): EpisodeEntry => {
    const entry = entries.get(root) ?? { episode: root, callers: [] };
    entries.set(root, entry);
    return entry;
  };
  for (const e of episodes) {
    const host = within.get(e);
    if (host !== undefined && !under.has(e)) {
      const entry = entryOf(rootOf(host));
      (entry.within ??= []).push(e);
      continue;
    }
    const root = rootOf(e);
    const entry = entryOf(root);
    if (root !== e) entry.callers.push(e);
  }
  return [...entries.values()];
}
