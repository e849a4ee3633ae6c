import { askShared } from '../api/client';
import { decodeFanouts, type Stats } from '../api/contracts';
import { prefetchRequestWhatIf } from '../api/whatif';
import { pickOperation, rankOperations } from '../model/operations';
import { edgeOf, firstWhatIf } from '../whatif/first-ask';
import { leafLoad } from '../whatif/use-leaves';
import { parseFilters } from './filters';
import { rangeOf } from './range-state';

/**
 * The questions each route asks first that depend only on the range (and, for the Fan-outs,
 * Stragglers and What-if pages, on the operation the fan-outs name: its leaf calls, and the
 * What-if's whole request), started as soon as the store's statistics are in:
 * before React has mounted and rendered the page that asks them, which on a loaded 2-core
 * machine took 40-160 ms after /api/v1/stats arrived (bench:pages, second visits). The pages'
 * own asks of the same URLs join these (api/shared-answers.ts; the What-if's whole request
 * through api/whatif.ts), so nothing is asked twice (the browser test warm-answers checks); a
 * route not listed asks nothing ahead.
 */
const FIRST_ASKS: Readonly<Record<string, readonly ('fanouts' | 'edges')[]>> = {
  '/': ['fanouts'],
  '/fanouts': ['fanouts', 'edges'],
  '/stragglers': ['fanouts'],
  '/whatif': ['fanouts'],
  '/map': ['edges'],
};

/** Starts the current route's first asks over the range its pages will resolve. */
export function askAhead(stats: Stats, nowMs: number, generation: number): void {
  const path = window.location.pathname.replace(/\/+$/, '') || '/';
  const asks = FIRST_ASKS[path];
  if (!asks) return;
  const params = new URLSearchParams(window.location.search);
  const filters = parseFilters(params);
  const r = rangeOf(stats, filters, nowMs, generation);
  if (r.state !== 'ready') return;
  const query = { from: Math.floor(r.range.fromMs), to: Math.ceil(r.range.toMs) };
  for (const name of asks) {
    const answer = askShared(name, { query });
    if (name !== 'fanouts' || !LEAF_PAGES.has(path)) continue;
    void answer.then((body) => {
      const op = pickOperation(rankOperations(decodeFanouts(body, '').fanouts), filters);
      if (!op) return;
      // The operation's leaf calls, into the simulator's worker (started now, not when the page
      // has rendered: its start and the read took 0.5 s after the fan-outs at 10M spans).
      leafLoad(op, r.range, r.key).load().catch(ignore);
      // The What-if page's whole request, for the operation the page will pick.
      if (path !== '/whatif' || op.parentService === '') return;
      const { policy, seed } = firstWhatIf(op, params);
      prefetchRequestWhatIf(r.range, edgeOf(op), policy, seed);
    }, ignore);
  }
}

const ignore = (): void => undefined;

/** The routes whose page loads the selected operation's leaf calls (useLeafData). */
const LEAF_PAGES = new Set(['/fanouts', '/stragglers', '/whatif']);
