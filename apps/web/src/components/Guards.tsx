import type { ReactNode } from 'react';
import { useRange, type RangeState } from '../state/store-context';
import { useFanoutsAnswer, useSelectedOperation } from '../state/use-operations';
import type { FanoutOp } from '../api/contracts';
import type { TimeRange } from '../state/filters';
import { EmptyStore, ErrorState, Loading, NoFanouts } from './states';

type Ready = Extract<RangeState, { state: 'ready' }>;

/**
 * Renders children once the store answered and holds spans; the shared states otherwise.
 * `toNewest`: the range keeps the newest spans (useRange).
 */
export function WithRange({
  children,
  toNewest = false,
}: {
  children: (r: Ready) => ReactNode;
  toNewest?: boolean;
}) {
  const r = useRange({ toNewest });
  if (r.state === 'loading') return <Loading label="Reading the store" />;
  if (r.state === 'error') return <ErrorState error={r.error} what="the store's statistics" />;
  if (r.state === 'empty') return <EmptyStore inRange={false} listen={r.stats.listen} />;
  return <>{children(r)}</>;
}

/**
 * As WithRange, plus the selected fan-out operation. When the range has none: the API's reason
 * and edges, then `empty` (a page's own extra, e.g. the edges table).
 */
export function WithOperation({
  children,
  empty,
}: {
  children: (op: FanoutOp, range: TimeRange, rangeKey: string) => ReactNode;
  empty?: (range: TimeRange, rangeKey: string) => ReactNode;
}) {
  const op = useSelectedOperation();
  const answer = useFanoutsAnswer();
  return (
    <WithRange>
      {(r) => {
        if (op.state === 'error') return <ErrorState error={op.error} what="fan-out operations" />;
        if (op.state !== 'ready' || answer.state !== 'ready')
          return <Loading label="Finding fan-outs" />;
        if (!op.data) return <NoFanouts answer={answer.data}>{empty?.(r.range, r.key)}</NoFanouts>;
        return children(op.data, r.range, r.key);
      }}
    </WithRange>
  );
}
