import { Link } from 'react-router';
import { Panel } from '../../components/Panel';
import { Empty, ErrorState, Loading } from '../../components/states';
import { requestKey } from '../../api/endpoints';
import {
  describeIncident,
  describePathDiff,
  describeTopCause,
  fetchIncidents,
  type Incident,
} from '../../api/incidents';
import type { TimeRange } from '../../state/filters';
import { useResource } from '../../state/use-resource';

/** Shown at most. */
const SHOWN = 5;

const fmtMs = (v: number): string => (v >= 10 ? v.toFixed(0) : v.toFixed(1));

/** Exemplar slow and typical requests to open, and whose time grew on the critical path. */
function IncidentDetail({ i }: { i: Incident }) {
  const path = describePathDiff(i);
  const { slow, typical } = i.exemplars;
  if (path.length === 0 && slow.length === 0) return null;
  const links = (list: Incident['exemplars']['slow'], kind: string) =>
    list.map((e, n) => (
      <span key={e.traceId}>
        {n > 0 ? ', ' : ''}
        <Link to={`/traces/${e.traceId}`} data-exemplar={kind}>
          {fmtMs(e.durationMs)} ms
        </Link>
      </span>
    ));
  return (
    <div className="incident-detail" data-testid="incident-detail">
      {path.length > 0 && (
        <p data-testid="incident-path-diff">
          Critical path, slow against typical requests: {path.join('; ')}.
        </p>
      )}
      {slow.length > 0 && (
        <p>
          Slow requests: {links(slow, 'slow')}
          {typical.length > 0 && <> · typical before it: {links(typical, 'typical')}</>}
        </p>
      )}
    </div>
  );
}

/** The range's incidents in words, each with its most likely root cause (issue 28). */
export function Incidents({ range, rangeKey }: { range: TimeRange; rangeKey: string }) {
  const res = useResource(requestKey('overview-incidents', { rangeKey }), (signal) =>
    fetchIncidents(range, signal),
  );
  return (
    <Panel
      id="incidents"
      title="Incidents"
      hint="co-occurring slow episodes joined along call edges; root causes ranked by the share of the extra critical-path time they explain"
    >
      {res.state === 'error' ? (
        <ErrorState error={res.error} what="incidents" />
      ) : res.state !== 'ready' ? (
        <Loading height={60} label="Joining episodes into incidents" />
      ) : res.data.incidents.length === 0 ? (
        <Empty title="No incident in this range">
          <p>No service was slower than its own history.</p>
        </Empty>
      ) : (
        <ul className="episode-list" data-testid="incidents-overview">
          {res.data.incidents.slice(0, SHOWN).map((i) => {
            const top = i.rootCauses[0];
            const traces = new URLSearchParams({
              from: String(Math.floor(i.fromMs)),
              to: String(Math.ceil(i.toMs)),
              service: top?.service ?? i.affected[0]?.service ?? '',
              order: 'slowest',
            });
            return (
              <li key={i.id}>
                <strong>{describeIncident(i)}</strong>
                <br />
                <span>{describeTopCause(i)}</span>{' '}
                <Link to={`/traces?${traces.toString()}`}>slowest traces</Link>
                <IncidentDetail i={i} />
              </li>
            );
          })}
        </ul>
      )}
    </Panel>
  );
}
