import { formatCount } from '@tailscope/charts';
import type { FanoutOp } from '../../api/contracts';
import { Panel } from '../../components/Panel';
import { queueWaitRows, structureSummary } from '../../model/structure';

/** How the operation's calls ran (#12): parallel, or a pool with its size and queue wait. */
export function Structure({ op }: { op: FanoutOp }) {
  const s = structureSummary(op);
  if (!s) return null;
  const waits = queueWaitRows(op);
  return (
    <Panel id="structure" title="How the calls ran" hint={s.label}>
      <p data-testid="structure">{s.detail}</p>
      <table data-testid="structure-table">
        <tbody>
          <tr>
            <th scope="row">Structure</th>
            <td>{s.label}</td>
          </tr>
          {op.concurrency && (
            <tr>
              <th scope="row">Calls in flight at once, p50 / max</th>
              <td className="n">
                {formatCount(op.concurrency.p50)} / {formatCount(op.concurrency.max)}
              </td>
            </tr>
          )}
          {op.poolSize !== undefined && (
            <tr>
              <th scope="row">Pool size (estimated workers)</th>
              <td className="n">{formatCount(op.poolSize)}</td>
            </tr>
          )}
          {waits.map((w) => (
            <tr key={w.label}>
              <th scope="row">Queue wait {w.label}</th>
              <td className="n">{w.value}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Panel>
  );
}
