import { Link } from 'react-router';
import { formatCount, formatMs, formatPValueNamed } from '@tailscope/charts';
import { Panel } from '../../components/Panel';
import { EpisodeEvidence } from '../../components/EpisodeEvidence';
import { Empty, ErrorState, Loading } from '../../components/states';
import { requestKey } from '../../api/endpoints';
import { describeEpisode, fetchEpisodes, type Episode } from '../../api/episodes';
import type { TimeRange } from '../../state/filters';
import { useResource } from '../../state/use-resource';
import { episodeEntries } from '../../model/episode-entries';
import { SlowedWith, SlowedWithin } from './SlowedWith';

/** Shown at most: the worst episodes by slowdown. */
const SHOWN = 6;

/**
 * Links of an episode: the Stragglers page (host heatmap, episode outlined) and the traces of
 * the callee, both over the episode with a window of margin on each side.
 */
export function episodeLinks(e: Episode, windowMs: number): { stragglers: string; traces: string } {
  const from = String(Math.floor(e.fromMs - windowMs));
  const to = String(Math.ceil(e.toMs + windowMs));
  const s = new URLSearchParams({ from, to, leafService: e.service });
  if (e.parentService !== undefined) s.set('parentService', e.parentService);
  if (e.operation !== undefined) s.set('leafOperation', e.operation);
  s.sort();
  const t = new URLSearchParams({ from, to, service: e.service });
  return { stragglers: `/stragglers?${s.toString()}`, traces: `/traces?${t.toString()}` };
}

/** The worst episodes of the range in words, with links (issue #13). */
export function WorstEpisodes({ range, rangeKey }: { range: TimeRange; rangeKey: string }) {
  const res = useResource(requestKey('overview-episodes', { rangeKey }), (signal) =>
    fetchEpisodes(range, undefined, signal),
  );
  const entries = res.state === 'ready' ? episodeEntries(res.data.episodes) : [];
  return (
    <Panel
      id="episodes"
      title="Slow episodes"
      hint="windows where calls into a service were slower than its own history (BH q < 0.05)"
    >
      {res.state === 'error' ? (
        <ErrorState error={res.error} what="episodes" />
      ) : res.state !== 'ready' ? (
        <Loading height={80} label="Judging each service against its history" />
      ) : res.data.episodes.length === 0 ? (
        <Empty title="No service was slower than its own history">
          <p>{`Judged in ${formatMs(res.data.windowSeconds * 1000)} windows.`}</p>
        </Empty>
      ) : (
        <ul className="episode-list" data-testid="episodes-overview">
          {entries.slice(0, SHOWN).map(({ episode: e, callers, within }) => {
            const links = episodeLinks(e, res.data.windowSeconds * 1000);
            return (
              <li
                key={`${e.kind ?? ''}:${e.service}:${e.host}:${e.parentService ?? ''}:${e.operation ?? ''}:${String(e.fromMs)}`}
              >
                <strong>{describeEpisode(e)}</strong>{' '}
                <span className="muted">
                  (p99 {formatMs(e.p99Ms)} against {formatMs(e.baselineP99Ms)},{' '}
                  {formatCount(e.calls)} calls, {formatPValueNamed('q', e.qValue)})
                </span>{' '}
                <Link to={links.stragglers}>hosts</Link> · <Link to={links.traces}>traces</Link>
                <SlowedWith callers={callers} />
                <SlowedWithin callees={within} />
                <EpisodeEvidence episode={e} />
              </li>
            );
          })}
          {res.data.sampling?.weighted === true && (
            <li className="muted">
              Weighted by sampling; {Math.round(res.data.sampling.spansWithoutSamplingInfo * 100)}%
              of spans carried no sampling information.
            </li>
          )}
        </ul>
      )}
    </Panel>
  );
}
