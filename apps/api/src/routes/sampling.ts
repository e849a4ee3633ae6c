import type { SamplingInfo } from '@tailscope/contracts';
import type { Store } from '../store';
import { selectSamplingInfo } from '../store/traces/sampling';

/**
 * The `sampling` block of an analysis answer (docs/analysis.md "Sampling"): one aggregate over
 * the stored part of its range. `weights`: whether this answer weights by the adjusted count at
 * all (some count each stored span once); `weighted` is true only when it does and some span in
 * range carried a threshold, so the block never claims a weighting that did not happen.
 * `whole`: the range holds every stored span (clampRangeCovering), so the whole store is read,
 * without the time filter: the same figures, cheaper.
 */
export async function rangeSampling(
  store: Store,
  range: { fromNs: bigint; toNs: bigint },
  weights = true,
  whole = false,
): Promise<SamplingInfo> {
  // An empty stored part (clampRange): no span, so nothing to read.
  if (range.fromNs >= range.toNs) return { weighted: false, spansWithoutSamplingInfo: 0 };
  const info = await selectSamplingInfo(store, whole ? undefined : range);
  return { ...info, weighted: weights && info.weighted };
}
