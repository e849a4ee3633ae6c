import { fetchFanouts, requestKey } from '../api/endpoints';
import type { FanoutOp, Fanouts } from '../api/contracts';
import { useResource, type Resource } from './use-resource';
import { useFilters, useRange } from './store-context';
import { pickOperation, rankOperations } from '../model/operations';

/**
 * The range's /api/v1/fanouts answer, operations worst first, with the API's hint and edges
 * when there are none. One request per range, shared by the filter bar and every page (the
 * cache answers the second asker).
 */
export function useFanoutsAnswer(): Resource<Fanouts> {
  const r = useRange();
  const key = r.state === 'ready' ? requestKey('fanouts', { range: r.key }) : null;
  const res = useResource(key, async (signal): Promise<Fanouts> => {
    if (r.state !== 'ready') return { fanouts: [] };
    const answer = await fetchFanouts(r.range, {}, signal);
    return { ...answer, fanouts: rankOperations(answer.fanouts) };
  });
  if (r.state === 'error') return { state: 'error', error: r.error };
  if (r.state === 'empty') return { state: 'ready', data: { fanouts: [] } };
  return res;
}

/** Every fan-out operation in the range, worst first. */
export function useOperations(): Resource<FanoutOp[]> {
  const res = useFanoutsAnswer();
  return res.state === 'ready' ? { state: 'ready', data: res.data.fanouts } : res;
}

/** The operation the URL names, else the worst; with the list's own state. */
export function useSelectedOperation(): Resource<FanoutOp | undefined> {
  const ops = useOperations();
  const [filters] = useFilters();
  if (ops.state !== 'ready') return ops;
  return { state: 'ready', data: pickOperation(ops.data, filters) };
}
