import { useId } from 'react';
import { useFilters } from '../state/store-context';
import { useOperations, useSelectedOperation } from '../state/use-operations';
import { operationId, operationLabel } from '../model/operations';

/** Picks the fan-out operation the page analyses; kept in the URL. */
export function OperationPicker() {
  const ops = useOperations();
  const selected = useSelectedOperation();
  const [, setFilters] = useFilters();
  const id = useId();
  if (ops.state !== 'ready' || ops.data.length === 0) return null;
  const current = selected.state === 'ready' && selected.data ? operationId(selected.data) : '';
  return (
    <label className="field" htmlFor={id}>
      <span>Fan-out operation</span>
      <select
        id={id}
        value={current}
        data-testid="operation"
        onChange={(e) => {
          const op = ops.data.find((o) => operationId(o) === e.target.value);
          if (op)
            setFilters({
              parentService: op.parentService,
              leafService: op.leafService,
              leafOperation: op.leafOperation,
            });
        }}
      >
        {ops.data.map((o) => (
          <option key={operationId(o)} value={operationId(o)}>
            {operationLabel(o)}
          </option>
        ))}
      </select>
    </label>
  );
}
