import { ReadingView, formatCount, formatRatio, layoutReading } from '@tailscope/charts';
import { Panel } from '../../components/Panel';
import { ChartBox } from '../../components/ChartBox';
import { SIGNAL_NAMES, formatSignal } from '../../components/EpisodeEvidence';
import type { HostCauseEvidence, MeasuredHostEvidence, StragglerRow } from '../../api/contracts';

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

/** A ratio in words: a zero baseline gives the largest number, shown as "from 0". */
const ratioText = (r: number): string => (r >= Number.MAX_VALUE ? 'from 0' : formatRatio(r));

/** A host cause's metrics against the leaf's other hosts: a line each, the worst charted. */
function HostReadings({ evidence }: { evidence: readonly HostCauseEvidence[] }) {
  const [top] = evidence;
  if (top === undefined) return null;
  const peers = (e: HostCauseEvidence) =>
    `on the ${formatCount(e.peers)} other host${e.peers === 1 ? '' : 's'}`;
  const f = (v: number) => formatSignal(top.signal, v);
  return (
    <>
      <ul className="evidence-list">
        {evidence.map((e) => (
          <li key={`${e.signal}:${e.metric}`} data-testid="cause-host-evidence">
            {SIGNAL_NAMES[e.signal] ?? e.signal}: {formatSignal(e.signal, e.value)}{' '}
            <span className="muted">
              {Number.isFinite(e.baseline)
                ? `(${formatSignal(e.signal, e.baseline)} ${peers(e)}, ${ratioText(e.ratio)}; ${e.metric})`
                : `(no other host sends it; ${e.metric})`}
            </span>
          </li>
        ))}
      </ul>
      <ChartBox minWidth={220}>
        {(width) => (
          <ReadingView
            layout={layoutReading(
              {
                ...top.series,
                value: top.value,
                baseline: top.baseline,
                level: NaN,
                format: f,
                label: `${top.metric} on ${top.host}`,
                baselineLabel: peers(top),
              },
              Math.min(width, 480),
            )}
          />
        )}
      </ChartBox>
    </>
  );
}

/** What the page says of one cause: its measured reading, its host's metrics, or why none. */
function CauseItem({ r }: { r: StragglerRow }) {
  const name = (
    <strong>
      {dimensionName(r.dimension)} {r.value}
    </strong>
  );
  const m = r.measured;
  if (m)
    return (
      <li data-testid="measured-cause">
        {name}: measured on {formatCount(m.hosts)} host{m.hosts === 1 ? '' : 's'} from{' '}
        {r.dimension === 'background' ? 'GC pause' : 'CPU steal and throttling'} metrics{' '}
        <span className="muted">({m.rule})</span>
        <ul className="evidence-list">
          {m.evidence.slice(0, PER_CAUSE).map((e) => (
            <Reading key={e.host} e={e} gc={r.dimension === 'background'} />
          ))}
        </ul>
      </li>
    );
  if (r.evidence && r.evidence.length > 0)
    return (
      <li data-testid="cause-host">
        {name}: its metrics over the range against the leaf&apos;s other hosts
        <HostReadings evidence={r.evidence} />
      </li>
    );
  return (
    <li data-testid="cause-note">
      {name}: <span className="muted">{r.evidenceNote ?? 'no metric evidence'}</span>
    </li>
  );
}

/**
 * The metric evidence behind each straggler cause (issue #27). A host cause: its metrics over
 * the range against the leaf's other hosts, the worst series charted. A sharing mode judged
 * from CPU steal and throttling, or gc background from GC pause metrics, where the spans said
 * neither: the rule, how many hosts were judged so, and the most telling hosts' readings with
 * the series the rule read. Any other cause: why it has no metric evidence (the API's note: no
 * metrics, spans and metrics cannot be joined, a value from span attributes). Nothing when
 * there is no cause.
 */
export function MeasuredEvidence({ rows }: { rows: readonly StragglerRow[] }) {
  const causes = rows.filter((r) => r.cause);
  if (causes.length === 0) return null;
  return (
    <Panel
      id="measured-evidence"
      title="Metric evidence behind each cause"
      hint="a host cause against the leaf's other hosts; a sharing mode or gc measured from metrics, on what"
    >
      <ul className="episode-list" data-testid="measured-evidence">
        {causes.map((r) => (
          <CauseItem key={`${r.dimension}=${r.value}`} r={r} />
        ))}
      </ul>
    </Panel>
  );
}
