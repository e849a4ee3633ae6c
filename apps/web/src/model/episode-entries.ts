import type { Episode } from '../api/episodes';

/** One entry of the Overview's episode list: an episode and the callers that slowed with it. */
export interface EpisodeEntry {
  episode: Episode;
  /** Episodes of calls into this episode's caller over an overlapping window, worst first. */
  callers: Episode[];
}

const overlaps = (a: Episode, b: Episode): boolean => a.fromMs < b.toMs && b.fromMs < a.toMs;

/**
 * One fault, one entry (issue 24). A slow callee makes its caller slow in the same window, so
 * the microservices fault (customer's database) was listed twice: calls from customer into
 * mysql, and calls from frontend into customer. An episode of calls into service S is listed
 * under an episode of calls that S made (its `parentService` is S) over an overlapping window,
 * following the chain down to the deepest callee; the rest stay entries of their own. Input
 * order (the API's, worst first) is kept. O(n²) in episodes (the API returns at most a few
 * hundred).
 */
export function episodeEntries(episodes: readonly Episode[]): EpisodeEntry[] {
  // The episode a caller's episode is listed under: one of calls its service made, overlapping.
  const under = new Map<Episode, Episode>();
  for (const e of episodes) {
    const callee = episodes.find(
      (d) => d !== e && d.parentService === e.service && d.service !== e.service && overlaps(d, e),
    );
    if (callee) under.set(e, callee);
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
  for (const e of episodes) {
    const root = rootOf(e);
    const entry = entries.get(root) ?? { episode: root, callers: [] };
    entries.set(root, entry);
    if (root !== e) entry.callers.push(e);
  }
  return [...entries.values()];
}
