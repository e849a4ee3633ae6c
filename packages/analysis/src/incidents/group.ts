import type { SignalEvidence } from '../episode-cause';

/**
 * Incidents (DESIGN.md "Definitions": Incident): episodes that co-occur and are joined along call
 * edges are one fault seen from several series. The planted `microservices` fault shows as the
 * callee (customer, its host), the edge into it from frontend, and its MySQL calls: four series,
 * one incident.
 *
 * Two episodes are joined when their windows overlap or touch and their callee services are the
 * same or adjacent in the call graph (one calls the other). An edge episode is its callee's: two
 * faults in two callees of one caller (frontend -> customer, frontend -> route) stay two
 * incidents, since neither callee calls the other. Joining is transitive (union-find), so a
 * chain of co-occurring episodes a -> b -> c is one incident even when a's and c's are not
 * adjacent themselves. Pure; O(E^2 + G) for E episodes and G call-graph edges (E is small: the
 * episodes of one answer).
 */

/** One episode as incidents need it (the API's ServiceEpisode fits). */
export interface IncidentEpisode {
  /** `root`: a request root operation's own series (withRootEpisodes). */
  kind?: 'callee' | 'edge' | 'root' | undefined;
  /** Callee service. */
  service: string;
  /** Callee host ('*' for an edge). */
  host: string;
  parentService?: string | undefined;
  parentOperation?: string | undefined;
  operation?: string | undefined;
  fromMs: number;
  toMs: number;
  ratio: number;
  calls: number;
  /** Metric signals of the episode's host (callee episodes; the API's `evidence`). */
  evidence?: readonly SignalEvidence[] | undefined;
}

/** A caller service -> callee service edge of the call graph. */
export interface ServiceEdge {
  caller: string;
  callee: string;
}

export interface EpisodeGroup<E extends IncidentEpisode> {
  fromMs: number;
  toMs: number;
  /** The group's episodes, worst ratio first. */
  episodes: E[];
  /** Callee services of the episodes, sorted. */
  services: string[];
}

/**
 * Groups co-occurring episodes joined along call edges; see the module comment. `slackMs`: how
 * far apart two windows may be and still co-occur (default 0: overlapping or touching). Groups
 * come earliest first (then by their first service); the answer does not depend on input order.
 */
export function groupEpisodes<E extends IncidentEpisode>(
  episodes: readonly E[],
  edges: readonly ServiceEdge[],
  slackMs = 0,
): EpisodeGroup<E>[] {
  const adjacent = new Set<string>();
  for (const e of edges) {
    adjacent.add(`${e.caller}\u0000${e.callee}`);
    adjacent.add(`${e.callee}\u0000${e.caller}`);
  }
  // Edge episodes are call-graph edges too, whatever the edge list holds.
  for (const e of episodes)
    if (e.parentService !== undefined && e.parentService !== '') {
      adjacent.add(`${e.parentService}\u0000${e.service}`);
      adjacent.add(`${e.service}\u0000${e.parentService}`);
    }
  const related = (a: E, b: E): boolean => {
    if (a.fromMs > b.toMs + slackMs || b.fromMs > a.toMs + slackMs) return false;
    return a.service === b.service || adjacent.has(`${a.service}\u0000${b.service}`);
  };
  const parent = episodes.map((_, i) => i);
  const find = (i: number): number => {
    let r = i;
    while (parent[r] !== r) r = parent[r] as number;
    while (parent[i] !== r) {
      const next = parent[i] as number;
      parent[i] = r;
      i = next;
    }
    return r;
  };
  for (let i = 0; i < episodes.length; i++)
    for (let j = i + 1; j < episodes.length; j++)
      if (related(episodes[i] as E, episodes[j] as E)) {
        const a = find(i);
        const b = find(j);
        if (a !== b) parent[Math.max(a, b)] = Math.min(a, b);
      }
  const byRoot = new Map<number, E[]>();
  episodes.forEach((e, i) => {
    const r = find(i);
    const list = byRoot.get(r);
    if (list) list.push(e);
    else byRoot.set(r, [e]);
  });
  const groups = [...byRoot.values()].map((list) => ({
    fromMs: Math.min(...list.map((e) => e.fromMs)),
    toMs: Math.max(...list.map((e) => e.toMs)),
    episodes: worstFirst(list),
    services: [...new Set(list.map((e) => e.service))].sort(),
  }));
  return groups.sort(byStart);
}

// Every field that tells two episodes apart, so the order never depends on the input's:
// two episodes of one series and start with different ends once came out in either order.
const episodeKey = (e: IncidentEpisode): string =>
  JSON.stringify([
    e.service,
    e.host,
    e.kind ?? '',
    e.parentService ?? '',
    e.parentOperation ?? '',
    e.operation ?? '',
    e.fromMs,
    e.toMs,
    e.calls,
  ]);

function worstFirst<E extends IncidentEpisode>(list: readonly E[]): E[] {
  return [...list].sort((a, b) => {
    const ka = episodeKey(a);
    const kb = episodeKey(b);
    return b.ratio - a.ratio || (ka < kb ? -1 : ka > kb ? 1 : 0);
  });
}

const byStart = (a: EpisodeGroup<IncidentEpisode>, b: EpisodeGroup<IncidentEpisode>): number =>
  a.fromMs - b.fromMs ||
  a.toMs - b.toMs ||
  ((a.services[0] ?? '') < (b.services[0] ?? '') ? -1 : 1);

/**
 * Adds the episodes of request roots (a root operation's requests slower than their own
 * history, kind `root`) to the groups of call episodes. A root episode that overlaps or touches
 * a group belongs to it: the requests that group's fault slowed (it joins the group's episodes,
 * so `affected` names the root operation; the group's window and services stay those of its
 * calls). Root episodes that touch no group are incidents of their own, joined as groupEpisodes
 * joins (overlapping, of one service): requests got slower while no call did, as when the
 * root's process gives its calls fewer workers. A root episode touching several groups goes to
 * the one it overlaps most (then the earliest). Pure; O(R G) plus groupEpisodes over the rest.
 */
export function withRootEpisodes<E extends IncidentEpisode>(
  groups: readonly EpisodeGroup<E>[],
  roots: readonly E[],
): EpisodeGroup<E>[] {
  const out = groups.map((g) => ({ ...g, episodes: [...g.episodes] }));
  const alone: E[] = [];
  for (const r of [...roots].sort((a, b) => (episodeKey(a) < episodeKey(b) ? -1 : 1))) {
    let best = -1;
    let most = -1;
    out.forEach((g, i) => {
      if (r.fromMs > g.toMs || g.fromMs > r.toMs) return;
      const o = Math.min(r.toMs, g.toMs) - Math.max(r.fromMs, g.fromMs);
      if (o > most) {
        most = o;
        best = i;
      }
    });
    const g = out[best];
    if (g) g.episodes.push(r);
    else alone.push(r);
  }
  for (const g of out) g.episodes = worstFirst(g.episodes);
  return [...out, ...groupEpisodes(alone, [])].sort(byStart);
}
