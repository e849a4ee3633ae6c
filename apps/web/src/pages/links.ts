import type { FanoutOp } from '../api/contracts';
import { FILTER_KEYS } from '../state/filters';

/** The current shared filters with `op` selected, as a search string for a link. */
export function opSearch(
  op: Pick<FanoutOp, 'parentService' | 'leafService' | 'leafOperation'>,
  current: string = typeof window === 'undefined' ? '' : window.location.search,
): string {
  const src = new URLSearchParams(current);
  const out = new URLSearchParams();
  for (const k of FILTER_KEYS) {
    const v = src.get(k);
    if (v !== null) out.set(k, v);
  }
  out.set('parentService', op.parentService);
  out.set('leafService', op.leafService);
  out.set('leafOperation', op.leafOperation);
  out.sort();
  return `?${out.toString()}`;
}
