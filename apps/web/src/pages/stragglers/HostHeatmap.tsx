import { useId, useMemo } from 'react';
import { useSearchParams } from 'react-router';
import { Panel } from '../../components/Panel';
import { ChartBox } from '../../components/ChartBox';
import { Empty, ErrorState, Loading } from '../../components/states';
import { HeatmapChart, formatMs } from '@tailscope/charts';
import { fetchHosts, requestKey } from '../../api/endpoints';
import { autoWindowSeconds, hostMatrix } from '../../api/hosts';
import { singleHostNote } from '../../model/host-note';
import { describeEpisode, fetchEpisodes } from '../../api/episodes';
import type { FanoutOp } from '../../api/contracts';
import type { TimeRange } from '../../state/filters';
import { useResource } from '../../state/use-resource';
import { operationLabel } from '../../model/operations';

const WINDOWS = [
  { v: '', label: 'auto (about 90 windows)' },
  { v: '1', label: '1 s' },
  { v: '10', label: '10 s' },
  { v: '30', label: '30 s' },
  { v: '60', label: '1 min' },
  { v: '300', label: '5 min' },
];

/** The host x time heatmap panel, its window length kept in the URL (`windowSeconds`). */
export function HostHeatmap({
  op,
  range,
  rangeKey,
  causes,
  open,
}: {
  op: FanoutOp;
  range: TimeRange;
  rangeKey: string;
  causes: ReadonlySet<string>;
  open: (q: { host: string; fromMs?: number; toMs?: number }) => void;
}) {
  const [params, setParams] = useSearchParams();
  const win = params.get('windowSeconds') ?? '';
  const seconds = win === '' ? autoWindowSeconds(range.toMs - range.fromMs) : Number(win);
  const key = requestKey('hosts', { rangeKey, op: operationLabel(op), seconds });
  const res = useResource(key, (signal) => fetchHosts(range, op, seconds, signal));
  const matrix = useMemo(() => (res.state === 'ready' ? hostMatrix(res.data) : null), [res]);
  // Episodes of the leaf service against its own history, outlined on their host rows.
  const eps = useResource(
    requestKey('heatmap-episodes', { rangeKey, service: op.leafService }),
    (signal) => fetchEpisodes(range, op.leafService, signal),
  );
  const marks = useMemo(
    () =>
      eps.state === 'ready'
        ? eps.data.episodes
            .filter((e) => e.kind !== 'edge' && e.host !== '*')
            .map((e) => ({
              host: e.host,
              fromMs: e.fromMs,
              toMs: e.toMs,
              label: describeEpisode(e),
            }))
        : [],
    [eps],
  );
  const id = useId();
  return (
    <Panel
      id="heatmap"
      title="Host latency over time"
      hint="p99 per host and window; a bad episode shows as a hot band. Click a cell to open a request."
      right={
        <label
          className="field"
          htmlFor={id}
          style={{ flexDirection: 'row', alignItems: 'center', gap: 6 }}
        >
          <span>Window</span>
          <select
            id={id}
            value={win}
            onChange={(e) => {
              setParams((p) => {
                const n = new URLSearchParams(p);
                if (e.target.value === '') n.delete('windowSeconds');
                else n.set('windowSeconds', e.target.value);
                return n;
              });
            }}
          >
            {WINDOWS.map((w) => (
              <option key={w.v} value={w.v}>
                {w.label}
              </option>
            ))}
          </select>
        </label>
      }
    >
      {res.state === 'error' ? (
        <ErrorState error={res.error} what="host latency windows" />
      ) : res.state !== 'ready' || matrix === null ? (
        <Loading height={260} label="Loading host windows" />
      ) : matrix.windows === 0 ? (
        <Empty title="No host windows in this range" />
      ) : (
        <>
          {singleHostNote(matrix.hosts) !== null && (
            <p className="caption" data-testid="single-host">
              {singleHostNote(matrix.hosts)}
            </p>
          )}
          <ChartBox minWidth={480}>
            {(w) => (
              <HeatmapChart
                matrix={matrix}
                width={w}
                onPick={open}
                highlight={causes}
                marks={marks}
              />
            )}
          </ChartBox>
          {marks.length > 0 && (
            <p className="caption" data-testid="service-episodes">
              Outlined:{' '}
              {marks
                .slice(0, 4)
                .map((m) => m.label)
                .join('; ')}
            </p>
          )}
          {res.data.episodes.length > 0 && (
            <p className="caption" data-testid="episodes">
              Episodes:{' '}
              {res.data.episodes
                .slice(0, 6)
                .map(
                  (e) =>
                    `${e.host} ${formatMs(e.endMs - e.startMs)} at p99 ${formatMs(e.worstP99Ms)} (fleet ${formatMs(e.fleetP99Ms)})`,
                )
                .join('; ')}
            </p>
          )}
        </>
      )}
    </Panel>
  );
}
