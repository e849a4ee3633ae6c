import { formatMs } from '@tailscope/charts';
import { timesSlower, type Episode } from '../../api/episodes';

/**
 * The callers that slowed with an episode's callee in the same window, on one line under it
 * (model/episode-entries.ts): the same fault seen from upstream, not another fault.
 */
export function SlowedWith({ callers }: { callers: readonly Episode[] }) {
  if (callers.length === 0) return null;
  return (
    <div className="muted" data-testid="episode-callers">
      The same fault upstream:{' '}
      {callers
        .map(
          (c) =>
            `calls from ${c.parentService ?? '?'} into ${c.service} ${timesSlower(c.ratio)} slower (p99 ${formatMs(c.p99Ms)})`,
        )
        .join('; ')}
      .
    </div>
  );
}

/**
 * Calls the episode's service made into a callee that sends no spans of its own, slower in the
 * same window (model/episode-entries.ts): inside the service's time as traces see it.
 */
export function SlowedWithin({ callees }: { callees: readonly Episode[] | undefined }) {
  if (callees === undefined || callees.length === 0) return null;
  return (
    <div className="muted" data-testid="episode-within">
      Within it:{' '}
      {callees
        .map(
          (c) =>
            `calls from ${c.parentService ?? '?'} into ${c.service} ${timesSlower(c.ratio)} slower (p99 ${formatMs(c.p99Ms)}; ${c.service} sends no spans of its own, so its time cannot be told from ${c.parentService ?? 'its caller'}'s)`,
        )
        .join('; ')}
      .
    </div>
  );
}
