import { EvidenceView, formatMs, formatPct, layoutEvidence } from '@tailscope/charts';
import type { Episode } from '../api/episodes';
import { ChartBox } from './ChartBox';

/**
 * An episode's cause and the evidence it rests on (issue #27): the cause in words, the span
 * split (server time against the callers' time outside it), each metric signal inside the
 * episode against before it, and the strongest signal's series over the episode as a chart.
 */

type Evidence = NonNullable<Episode['evidence']>[number];

/** A signal's value in its unit (docs/metrics.md): shares and seconds per second as %. */
export function formatSignal(signal: string, v: number): string {
  if (signal === 'network' || signal === 'memory-pressure')
    return `${v >= 10 ? v.toFixed(0) : v.toFixed(2)}/s`;
  return formatPct(v);
}

export const SIGNAL_NAMES: Readonly<Record<string, string>> = {
  'cpu-saturation': 'CPU of its limit',
  throttling: 'CPU throttled',
  'neighbour-pressure': 'CPU steal',
  'gc-pause': 'time in GC pauses',
  network: 'network errors and drops',
  'memory-pressure': 'major page faults',
};

function EvidenceRow({ e }: { e: Evidence }) {
  return (
    <li>
      {SIGNAL_NAMES[e.signal] ?? e.signal}: {formatSignal(e.signal, e.value)}{' '}
      <span className="muted">
        ({formatSignal(e.signal, e.baseline)} before{e.metric ? `, ${e.metric}` : ''})
      </span>
    </li>
  );
}

export function EpisodeEvidence({ episode }: { episode: Episode }) {
  const evidence = episode.evidence ?? [];
  const s = episode.spanEvidence;
  const charted = evidence.find((e) => e.series !== undefined && e.series.values.length > 1);
  if (episode.cause === undefined && evidence.length === 0 && s === undefined) return null;
  return (
    <details className="episode-evidence" data-testid="episode-evidence">
      <summary>{episode.cause ?? 'evidence'}</summary>
      <ul className="evidence-list">
        {s && (
          <li>
            server spans {formatMs(s.serverMs)}{' '}
            <span className="muted">({formatMs(s.baselineServerMs)} before)</span>, callers&apos;
            time outside them {formatMs(s.outsideMs)}{' '}
            <span className="muted">({formatMs(s.baselineOutsideMs)} before)</span>
          </li>
        )}
        {evidence.map((e) => (
          <EvidenceRow key={`${e.signal}:${e.metric ?? ''}`} e={e} />
        ))}
        {evidence.length === 0 && episode.evidenceNote && (
          <li className="muted">{episode.evidenceNote}</li>
        )}
      </ul>
      {charted?.series && (
        <ChartBox minWidth={220}>
          {(width) => (
            <EvidenceView
              layout={layoutEvidence(
                {
                  ...(charted.series as NonNullable<Evidence['series']>),
                  episodeFromMs: episode.fromMs,
                  episodeToMs: episode.toMs,
                  value: charted.value,
                  baseline: charted.baseline,
                  format: (v) => formatSignal(charted.signal, v),
                  label: charted.metric ?? charted.signal,
                },
                Math.min(width, 480),
              )}
            />
          )}
        </ChartBox>
      )}
    </details>
  );
}
