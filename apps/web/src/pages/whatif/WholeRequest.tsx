import type { WhatIfPolicy } from '@tailscope/analysis';
import { formatMs } from '@tailscope/charts';
import { Panel } from '../../components/Panel';
import type { EdgeKey, RequestAnswer } from '../../api/whatif';
import type { TimeRange } from '../../state/filters';
import { useRequestWhatIf } from './use-request-whatif';

/**
 * The whole request (root span) before and after, replayed by the server through the recorded
 * call trees (POST /api/v1/whatif): the browser's replay sees the fan-out only. Follows the
 * controls with previews while they move, the full answer once they rest (use-request-whatif).
 */
export function WholeRequest({
  edge,
  range,
  policy,
  seed,
}: {
  edge: EdgeKey;
  range: TimeRange;
  policy: WhatIfPolicy;
  seed: number;
}) {
  const { state, busy, previews } = useRequestWhatIf(edge, range, policy, seed);
  return (
    <Panel
      id="whole-request"
      title="Whole request"
      hint="root span, replayed by the server through the recorded call trees"
    >
      <div
        data-testid="whatif-request"
        data-state={state.kind}
        data-quality={state.kind === 'ready' ? state.quality : undefined}
        data-policy={state.kind === 'ready' ? JSON.stringify(state.policy) : undefined}
        data-previews={previews}
        aria-busy={busy}
      >
        {state.kind === 'loading' && <p>Replaying whole requests…</p>}
        {state.kind === 'error' && <p>Whole-request replay unavailable: {state.message}</p>}
        {state.kind === 'ready' && (
          <>
            <p className="timing" data-testid="whatif-request-quality">
              {state.quality === 'preview'
                ? 'Preview: one replay, 200 bootstrap resamples (the full answer once the controls rest).'
                : 'Full answer: pooled replays, full bootstrap.'}
            </p>
            <Answer a={state.answer} />
          </>
        )}
      </div>
    </Panel>
  );
}

function Answer({ a }: { a: RequestAnswer }) {
  if (a.applicable === false)
    return <p data-testid="whatif-request-not-applicable">Does not apply: {a.reason}</p>;
  const q = a.request;
  if (!q) return <p>This server does not replay whole requests.</p>;
  const rows = [
    ['p50', q.baseline.p50, q.whatIf.p50],
    ['p90', q.baseline.p90, q.whatIf.p90],
    ['p99', q.baseline.p99, q.whatIf.p99],
  ] as const;
  return (
    <>
      <table>
        <thead>
          <tr>
            <th>Request</th>
            <th className="n">Recorded</th>
            <th className="n">What-if</th>
            <th className="n">95% interval</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(([name, base, e]) => (
            <tr key={name} data-testid={`whatif-request-${name}`} data-value={e.value}>
              <td>{name}</td>
              <td className="n">{formatMs(base)}</td>
              <td className="n">{formatMs(e.value)}</td>
              <td className="n">
                {formatMs(e.low)} – {formatMs(e.high)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {q.shareOfEdgeChange !== undefined && (
        <p>
          {Math.round(100 * q.shareOfEdgeChange)}% of the edge&apos;s change reaches the request.
        </p>
      )}
      {q.closedLoop && (
        <p data-testid="whatif-request-closed-loop">
          Closed loop: {q.closedLoop.clients} clients send requests back to back through{' '}
          {q.closedLoop.resourceService} {q.closedLoop.resourceOperation}, one at a time (hold{' '}
          {formatMs(q.closedLoop.holdP50Ms)}); the replay re-runs them, so faster requests queue
          longer there.
        </p>
      )}
    </>
  );
}
