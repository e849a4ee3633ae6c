import { askShared } from '../api/client';
import type { Stats } from '../api/contracts';
import { parseFilters } from './filters';
import { rangeOf } from './store-context';

/**
 * The range-only questions each route asks first (the pages' own asks, by route), started as
 * soon as the store's statistics are in: before React has rendered the page that asks them,
 * which on a loaded machine took 40-160 ms after /api/v1/stats arrived (bench:pages, second
 * visits). The pages' own asks of the same URLs join these (api/shared-answers.ts), so nothing
 * is asked twice; a route not listed asks nothing ahead.
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
  const r = rangeOf(
    stats,
    parseFilters(new URLSearchParams(window.location.search)),
    nowMs,
    generation,
  );
  if (r.state !== 'ready') return;
  const query = { from: Math.floor(r.range.fromMs), to: Math.ceil(r.range.toMs) };
  for (const name of asks) askShared(name, { query });
}
