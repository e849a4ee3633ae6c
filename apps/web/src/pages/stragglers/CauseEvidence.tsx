import { Panel } from '../../components/Panel';
import { EpisodeEvidence } from '../../components/EpisodeEvidence';
import { requestKey } from '../../api/endpoints';
import { describeEpisode, fetchEpisodes } from '../../api/episodes';
import type { FanoutOp } from '../../api/contracts';
import type { TimeRange } from '../../state/filters';
import { useResource } from '../../state/use-resource';

/** Episodes shown per cause host at most. */
const PER_HOST = 3;

/**
 * The evidence beside each straggler cause host (issue #27): the leaf service's episodes on
 * that host (the same answer the heatmap outlines), each with its cause in words, its evidence
 * and its metric's series. Nothing when no cause is a host or no episode falls on one.
 */
export function CauseEvidence({
  op,
  range,
  rangeKey,
  hosts,
}: {
  op: FanoutOp;
  range: TimeRange;
  rangeKey: string;
  hosts: ReadonlySet<string>;
}) {
  const eps = useResource(
    hosts.size === 0 ? null : requestKey('heatmap-episodes', { rangeKey, service: op.leafService }),
    (signal) => fetchEpisodes(range, op.leafService, signal),
  );
  if (eps.state !== 'ready') return null;
  const onCauses = eps.data.episodes.filter((e) => e.kind !== 'edge' && hosts.has(e.host));
  if (onCauses.length === 0) return null;
  return (
    <Panel
      id="cause-evidence"
      title="Evidence on the cause hosts"
      hint="episodes of the leaf service on a host named as a cause, with what its metrics and spans show"
    >
      <ul className="episode-list" data-testid="cause-evidence">
        {[...hosts].flatMap((h) =>
          onCauses
            .filter((e) => e.host === h)
            .slice(0, PER_HOST)
            .map((e) => (
              <li key={`${e.host}:${String(e.fromMs)}`}>
                <strong>{describeEpisode(e)}</strong>
                <EpisodeEvidence episode={e} />
              </li>
            )),
        )}
      </ul>
    </Panel>
  );
}
