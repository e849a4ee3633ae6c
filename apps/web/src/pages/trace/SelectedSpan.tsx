import { fetchSpan } from '../../api/endpoints';
import type { Trace } from '../../api/contracts';
import type { TimedSpan } from '../../model/trace-tree';
import { useResource } from '../../state/use-resource';
import { SpanDetails } from './SpanDetails';

/**
 * The selected span's details. A summary answer (the page's default) carries no attributes,
 * events or links, so they are asked for when a span is selected: once per span (the shared
 * cache keeps each answer), and aborted when the page or the selection moves on first.
 */
export function SelectedSpan({
  trace,
  span,
  t0Ns,
  selfMs,
}: {
  trace: Trace;
  span: TimedSpan;
  t0Ns: bigint;
  selfMs: number | undefined;
}) {
  const summary = trace.detail === 'summary';
  const spanId = span.span.spanId;
  const res = useResource(summary ? `span:${trace.traceId}:${spanId}` : null, (signal) =>
    fetchSpan(trace.traceId, spanId, signal),
  );
  const details = !summary
    ? span.span
    : res.state === 'ready'
      ? res.data
      : res.state === 'error'
        ? res.error
        : 'loading';
  return <SpanDetails span={span} t0Ns={t0Ns} selfMs={selfMs} details={details} />;
}
