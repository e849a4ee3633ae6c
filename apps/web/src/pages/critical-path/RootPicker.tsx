import { useId } from 'react';
import { formatCount } from '@tailscope/charts';
import type { CriticalPath } from '../../api/traces';

const SEP = '\u0000';

/**
 * The root operation whose requests the page compares: the range's request roots, busiest
 * first (the server's default is the first). Background activity is not listed: it is not a
 * request.
 */
export function RootPicker({
  data,
  onPick,
}: {
  data: CriticalPath;
  onPick: (root: { service: string; operation: string }) => void;
}) {
  const id = useId();
  const roots = data.roots ?? [];
  if (roots.length === 0) return null;
  const current = `${data.service}${SEP}${data.operation}`;
  const listed = roots.some((r) => `${r.service}${SEP}${r.operation}` === current);
  return (
    <div className="field" data-testid="root-picker">
      <label htmlFor={id}>Requests of</label>{' '}
      <select
        id={id}
        value={current}
        onChange={(e) => {
          const [service = '', operation = ''] = e.target.value.split(SEP);
          onPick({ service, operation });
        }}
      >
        {!listed && (
          <option value={current}>
            {data.service}: {data.operation}
          </option>
        )}
        {roots.map((r) => (
          <option
            key={`${r.service}${SEP}${r.operation}`}
            value={`${r.service}${SEP}${r.operation}`}
          >
            {r.service}: {r.operation} ({formatCount(r.requests)} requests)
          </option>
        ))}
      </select>
    </div>
  );
}
