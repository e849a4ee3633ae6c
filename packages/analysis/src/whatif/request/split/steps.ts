/**
 * Steps of the split answer (driver.ts) that run on the executor's threads while the driver
 * does other work: the policy's prep, the sorts of the outputs.
 */

import type { LeafCalls } from '../../../types';
import type { PolicyPrep } from '../../policies';
import { percentileReads, type SortedOutputs } from '../answer';
import type { SplitExecutor, SplitScratch } from './executor';
import {
  splitBootstrapReads,
  splitPrepScan,
  splitSortInputs,
  type BootstrapReads,
  type SplitAnswer,
  type SplitReplay,
} from './split';

/**
 * The policy's work on the merged calls that needs no draws (splitPrepWork): the replay index
 * on thread 0 and the quantile on thread 1 at once; the hedge's scan in the driver once the
 * quantile is in, while the index is still being built (splitPrepScan).
 */
export async function prepareOnThreads(
  exec: SplitExecutor,
  s: SplitAnswer,
  work: { index: boolean; quantile: number | undefined },
  calls: LeafCalls,
): Promise<PolicyPrep> {
  const n = exec.threads;
  const q = work.quantile;
  const indexed = work.index ? exec.run(0, { type: 'index', calls }) : undefined;
  indexed?.catch(() => undefined); // awaited below, after the quantile
  const quantile =
    q === undefined
      ? undefined
      : await exec.run(1 % n, { type: 'quantile', values: calls.durationMs, q });
  const prep = splitPrepScan(
    s,
    calls,
    quantile?.type === 'quantile' ? { quantile: quantile.value } : {},
  );
  const index = await indexed;
  return index?.type === 'index' ? { ...prep, index: index.index } : prep;
}

/**
 * The recorded outputs (splitBaseInputs) ordered on the threads where the baseline's
 * percentiles read them (percentileReads: 8 positions; ~10 ms against ~50 ms for a full sort
 * of 1 million values, and no copy: 'order' leaves its input alone), from thread `from` on (1:
 * thread 0 builds the replay index meanwhile, so both go to thread 1).
 */
export async function sortBaseOnThreads(
  exec: SplitExecutor,
  base: Pick<SortedOutputs, 'reqBase' | 'fanBase'>,
  from: number,
  mem: SplitScratch,
): Promise<Pick<SortedOutputs, 'reqBase' | 'fanBase'>> {
  const n = exec.threads;
  const order = (values: Float64Array, t: number): Promise<Float64Array> => {
    const out = mem.f64(values.length);
    const ranges = percentileReads(values.length);
    if (ranges.length === 0) return Promise.resolve(out);
    return exec.run(t % n, { type: 'order', values, ranges, out }).then(() => out);
  };
  const [reqBase, fanBase] = await Promise.all([order(base.reqBase, from), order(base.fanBase, 1)]);
  return { reqBase, fanBase };
}

/**
 * The recorded outputs the answer sorts (splitSortInputs' reqBase and fanBase: 1 million
 * values each at 1M requests, ~50 ms each), sorted on the threads, on shared copies; `early`
 * when they are already being sorted (sortBaseOnThreads). The replays' outputs are not sorted:
 * the bootstrap orders only the ranks it reads of them (SortedOutputs), cheaper than a sort.
 */
export async function sortAllOnThreads(
  exec: SplitExecutor,
  s: SplitAnswer,
  sr: SplitReplay,
  mem: SplitScratch,
  /** The recorded outputs already being sorted (sortBase). */
  early?: Promise<Pick<SortedOutputs, 'reqBase' | 'fanBase'>>,
  /** The involved requests' recorded times, taken on the threads. */
  recorded?: Float64Array,
): Promise<SortedOutputs | undefined> {
  const inputs = splitSortInputs(s, sr, recorded);
  const reads = splitBootstrapReads(s, sr);
  if (!inputs || !reads) return undefined;
  // The replays' outputs ordered where the bootstrap reads them, one on each thread.
  const n = exec.threads;
  const ordered = new Map<Float64Array, Float64Array>();
  const order = (values: Float64Array, r: BootstrapReads, t: number): Promise<unknown> => {
    if (r === 'none') return Promise.resolve();
    const out = mem.f64(values.length);
    ordered.set(values, out);
    return exec.run(t % n, { type: 'order', values, ranges: r, out });
  };
  const asked = [order(sr.fanAll, reads.fan, 0), order(sr.reqAll, reads.req, 1)];
  const base = await (early ?? sortBaseOnThreads(exec, inputs, 0, mem));
  await Promise.all(asked);
  const fan = ordered.get(sr.fanAll);
  const req = ordered.get(sr.reqAll);
  return { ...base, ...(fan ? { fan } : {}), ...(req ? { req } : {}) };
}
