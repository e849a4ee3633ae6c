import { formatMs } from '@tailscope/charts';
import { Link } from 'react-router';
import type { TimedSpan } from '../../model/trace-tree';
import type { TraceSpan } from '../../api/contracts';
import { attributeText, eventRows } from '../../model/span-details';

function Attributes({ title, attrs }: { title: string; attrs: Record<string, unknown> }) {
  const entries = Object.entries(attrs).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return (
    <>
      <h3>{title}</h3>
      {entries.length === 0 ? (
        <p className="caption">none</p>
      ) : (
        <dl>
          {entries.map(([k, v]) => (
            <div key={k} style={{ display: 'contents' }}>
              <dt>{k}</dt>
              <dd>{attributeText(v)}</dd>
            </div>
          ))}
        </dl>
      )}
    </>
  );
}

/**
 * Everything stored about one span: status (and its message), start offset and duration, its
 * self time on the critical path, attributes, resource, events with their offsets, and links.
 */
export function SpanDetails({
  span,
  t0Ns,
  selfMs,
  details,
}: {
  span: TimedSpan;
  t0Ns: bigint;
  selfMs: number | undefined;
  /** The span in full; `span` may come from a summary without attributes, events and links. */
  details: TraceSpan | 'loading' | Error;
}) {
  const s = span.span;
  return (
    <div className="span-details" data-testid="span-details" data-span={s.spanId}>
      <dl>
        <dt>span</dt>
        <dd>
          {s.service}: {s.name} ({s.kind})
        </dd>
        <dt>span id</dt>
        <dd>{s.spanId}</dd>
        <dt>status</dt>
        <dd data-testid="span-status">
          {s.status.code}
          {s.status.message !== '' ? `: ${s.status.message}` : ''}
        </dd>
        <dt>starts at</dt>
        <dd>{formatMs(span.startMs)} after the trace start</dd>
        <dt>duration</dt>
        <dd>{formatMs(span.durationMs)}</dd>
        <dt>critical path</dt>
        <dd>
          {selfMs === undefined ? 'not on the path' : `${formatMs(selfMs)} of self time on it`}
        </dd>
      </dl>
      {details === 'loading' ? (
        <p className="caption" data-testid="span-details-loading">
          Loading the span&apos;s attributes, events and links…
        </p>
      ) : details instanceof Error ? (
        <p className="caption" data-testid="span-details-error">
          The span&apos;s attributes, events and links could not be loaded: {details.message}
        </p>
      ) : (
        <Stored span={details} t0Ns={t0Ns} />
      )}
    </div>
  );
}

/** What a summary leaves out: events with their times, attributes, resource, links. */
function Stored({ span: s, t0Ns }: { span: TraceSpan; t0Ns: bigint }) {
  const events = eventRows(s, t0Ns);
  return (
    <>
      <h3>Events</h3>
      {events.length === 0 ? (
        <p className="caption">none</p>
      ) : (
        <table data-testid="span-events">
          <thead>
            <tr>
              <th className="n">At (span)</th>
              <th className="n">At (trace)</th>
              <th>Event</th>
              <th>Attributes</th>
            </tr>
          </thead>
          <tbody>
            {events.map((e, i) => (
              <tr key={i}>
                <td className="n">{formatMs(e.atSpanMs)}</td>
                <td className="n">{formatMs(e.atTraceMs)}</td>
                <td>{e.label}</td>
                <td className="mono">
                  {Object.entries(e.attributes)
                    .map(([k, v]) => `${k}=${attributeText(v)}`)
                    .join(' ')}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Attributes title="Attributes" attrs={s.attributes} />
      <Attributes title="Resource" attrs={s.resource} />
      <h3>Links</h3>
      {s.links.length === 0 ? (
        <p className="caption">none</p>
      ) : (
        <ul>
          {s.links.map((l) => (
            <li key={`${l.traceId}:${l.spanId}`} className="mono">
              <Link to={`/traces/${l.traceId}`}>{l.traceId}</Link> span {l.spanId}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
