import type { ReactNode } from 'react';
import { useRange, type RangeState } from '../state/store-context';
import { useSelectedOperation } from '../state/use-operations';
import type { FanoutOp } from '../api/contracts';
import type { TimeRange } from '../state/filters';
import { EmptyStore, ErrorState, Loading } from './states';

type Ready = Extract<RangeState, { state: 'ready' }>;

/** Renders children once the store answered and holds spans; the shared states otherwise. */
export function WithRange({ children }: { children: (r: Ready) => ReactNode }) {
  const r = useRange();
  if (r.state === 'loading') return <Loading label="Reading the store" />;
  if (r.state === 'error') return <ErrorState error={r.error} what="the store's statistics" />;
  if (r.state === 'empty') return <EmptyStore inRange={false} />;
  return <>{children(r)}</>;
}

/** As WithRange, plus the selected fan-out operation (empty state when the range has none). */
export function WithOperation({
  children,
}: {
  children: (op: FanoutOp, range: TimeRange, rangeKey: string) => ReactNode;
}) {
  const op = useSelectedOperation();
  return (
    <WithRange>
      {(r) => {
        if (op.state === 'error') return <ErrorState error={op.error} what="fan-out operations" />;
        if (op.state !== 'ready') return <Loading label="Finding fan-outs" />;
        if (!op.data) return <EmptyStore inRange />;
        return children(op.data, r.range, r.key);
      }}
    </WithRange>
  );
}
