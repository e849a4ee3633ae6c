import { fetchFanouts, requestKey } from '../api/endpoints';
import type { FanoutOp } from '../api/contracts';
import { useResource, type Resource } from './use-resource';
import { useFilters, useRange } from './store-context';
import { pickOperation, rankOperations } from '../model/operations';

/**
 * Every fan-out operation in the range, worst first. One request per range, shared by the
 * filter bar and every page (the cache answers the second asker).
 */
export function useOperations(): Resource<FanoutOp[]> {
  const r = useRange();
  const key = r.state === 'ready' ? requestKey('fanouts', { range: r.key }) : null;
  const res = useResource(key, async (signal) => {
    if (r.state !== 'ready') return [];
    return rankOperations(await fetchFanouts(r.range, {}, signal));
  });
  if (r.state === 'error') return { state: 'error', error: r.error };
  if (r.state === 'empty') return { state: 'ready', data: [] };
  return res;
}

/** The operation the URL names, else the worst; with the list's own state. */
export function useSelectedOperation(): Resource<FanoutOp | undefined> {
  const ops = useOperations();
  const [filters] = useFilters();
  if (ops.state !== 'ready') return ops;
  return { state: 'ready', data: pickOperation(ops.data, filters) };
}
