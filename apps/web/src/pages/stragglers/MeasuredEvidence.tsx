import { ReadingView, formatCount, layoutReading } from '@tailscope/charts';
import { Panel } from '../../components/Panel';
import { ChartBox } from '../../components/ChartBox';
import { SIGNAL_NAMES, formatSignal } from '../../components/EpisodeEvidence';
import type { MeasuredHostEvidence, StragglerRow } from '../../api/contracts';

/** Hosts whose readings are shown per cause. */
const PER_CAUSE = 3;

const dimensionName = (d: string): string => (d === 'sharing_mode' ? 'sharing mode' : d);

function Reading({ e, gc }: { e: MeasuredHostEvidence; gc: boolean }) {
  const f = (v: number) => formatSignal(e.signal, v);
  const compared = gc ? 'in its other windows' : 'on the hosts judged otherwise';
  return (
    <li data-testid="measured-host">
      <strong>{e.host}</strong>: {SIGNAL_NAMES[e.signal] ?? e.signal} {f(e.value)}{' '}
      {Number.isFinite(e.baseline) && (
        <span className="muted">
          ({f(e.baseline)} {compared}){' '}
        </span>
      )}
      — {formatCount(e.windowsAbove)} of {formatCount(e.windows)} windows at or above {f(e.level)}{' '}
      <span className="muted">({e.metric})</span>
      <ChartBox minWidth={220}>
        {(width) => (
          <ReadingView
            layout={layoutReading(
              {
                ...e.series,
                value: e.value,
                baseline: e.baseline,
                level: e.level,
                format: f,
                label: `${e.metric} on ${e.host}`,
                baselineLabel: compared,
              },
              Math.min(width, 480),
            )}
          />
        )}
      </ChartBox>
    </li>
  );
}

/**
 * The evidence behind straggler causes measured from metrics (issue #27): a sharing mode
 * judged from CPU steal and throttling, or gc background from GC pause metrics, where the spans
 * said neither. Per cause: the rule, how many hosts were judged so, and the most telling hosts'
 * readings against their baseline with the series the rule read. Nothing when no cause was
 * measured.
 */
export function MeasuredEvidence({ rows }: { rows: readonly StragglerRow[] }) {
  const measured = rows.filter((r) => r.cause && r.measured !== undefined);
  if (measured.length === 0) return null;
  return (
    <Panel
      id="measured-evidence"
      title="Evidence behind causes measured from metrics"
      hint="the spans carried no sharing mode or background activity: the hosts' metrics gave them"
    >
      <ul className="episode-list" data-testid="measured-evidence">
        {measured.map((r) => {
          const m = r.measured;
          if (!m) return null;
          return (
            <li key={`${r.dimension}=${r.value}`} data-testid="measured-cause">
              <strong>
                {dimensionName(r.dimension)} {r.value}
              </strong>
              : measured on {formatCount(m.hosts)} host{m.hosts === 1 ? '' : 's'} from{' '}
              {r.dimension === 'background' ? 'GC pause' : 'CPU steal and throttling'} metrics{' '}
              <span className="muted">({m.rule})</span>
              <ul className="evidence-list">
                {m.evidence.slice(0, PER_CAUSE).map((e) => (
                  <Reading key={e.host} e={e} gc={r.dimension === 'background'} />
                ))}
              </ul>
            </li>
          );
        })}
      </ul>
    </Panel>
  );
}
