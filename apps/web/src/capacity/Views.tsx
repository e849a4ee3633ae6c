import { formatChange, formatMs } from '@tailscope/charts';
import { Panel } from '../components/Panel';
import type { CapacityAsk, CapacityView, EstimateView } from '../api/capacity';
import type { Quality } from '../state/use-preview-answer';
import { caveatsOf, firstToSaturate, serviceFlag } from './verdict';

const pct = (x: number): string => `${Math.round(100 * x)}%`;

function Predicted({
  label,
  today,
  e,
  testId,
}: {
  label: string;
  today: number;
  e: EstimateView | undefined;
  testId: string;
}) {
  return (
    <div className="panel card" data-testid={testId} data-value={e?.value} data-today={today}>
      <div className="label">{label}</div>
      <div className="value">{e ? formatMs(e.value) : 'saturated'}</div>
      <div className="sub">
        {e
          ? `95% ${formatMs(e.low)} – ${formatMs(e.high)} · today ${formatMs(today)} (${formatChange(today, e.value)})`
          : `today ${formatMs(today)}; no finite latency at this load`}
      </div>
    </div>
  );
}

/** The predicted root p50 and p99 against today's, the first service to saturate, the caveats. */
export function Headline({
  answer,
  ask,
  quality,
  previews,
}: {
  answer: CapacityView;
  ask: CapacityAsk;
  quality: Quality;
  previews: number;
}) {
  const r = answer.capacity.request;
  const saturated = answer.capacity.saturated.length > 0;
  const caveats = caveatsOf(answer);
  const first = firstToSaturate(answer);
  const changed = Object.entries(ask.machines);
  return (
    <Panel
      id="capacity-headline"
      title={`Root request at ×${ask.factor} traffic`}
      hint={
        changed.length > 0
          ? `with ${changed.map(([s, n]) => `${n} × ${s}`).join(', ')}`
          : 'recorded machine counts'
      }
    >
      <div
        className="grid"
        data-testid="capacity-headline"
        data-state={saturated ? 'saturated' : 'predicted'}
        data-quality={quality}
        data-factor={ask.factor}
        data-previews={previews}
        data-p50={r.whatIf?.p50.value}
        data-p99={r.whatIf?.p99.value}
      >
        <div className="grid cards">
          <Predicted label="p50" today={r.baseline.p50} e={r.whatIf?.p50} testId="capacity-p50" />
          <Predicted label="p99" today={r.baseline.p99} e={r.whatIf?.p99} testId="capacity-p99" />
        </div>
        {first !== undefined && (
          <p className="verdict" data-testid="capacity-saturates-first">
            {first}
          </p>
        )}
        {caveats.length > 0 && (
          <ul className="notes" style={{ marginTop: 0 }}>
            {caveats.map((c) => (
              <li key={c.kind} data-testid="capacity-caveat" data-kind={c.kind}>
                {c.text}
              </li>
            ))}
          </ul>
        )}
      </div>
    </Panel>
  );
}

/** Each service's fitted model and what the change does to it. */
export function ServicesTable({ answer }: { answer: CapacityView }) {
  const first = answer.capacity.saturatesFirst;
  return (
    <Panel
      id="capacity-services"
      title="Services on the requests' path"
      hint="per instance, busiest window; queueing model fitted on the recording"
    >
      <div className="table-wrap">
        <table data-testid="capacity-services">
          <thead>
            <tr>
              <th>Service</th>
              <th>Model</th>
              <th className="n">Instances</th>
              <th className="n">Utilisation</th>
              <th className="n">Calls/s</th>
              <th className="n">Work / wait</th>
              <th className="n">Fit error</th>
              <th className="n">Call p99</th>
              <th>State</th>
            </tr>
          </thead>
          <tbody>
            {answer.capacity.services.map((s) => (
              <tr
                key={s.service}
                data-service={s.service}
                data-utilisation-after={s.utilisationAfter}
                data-instances-after={s.instancesAfter}
                className={s.service === first ? 'is-cause' : undefined}
              >
                <td>{s.service}</td>
                <td>{s.model === 'mgk' ? `M/G/${s.k}` : 'load curve'}</td>
                <td className="n">
                  {s.instancesAfter === s.instances
                    ? s.instances
                    : `${s.instances} → ${s.instancesAfter}`}
                </td>
                <td className="n">
                  {pct(s.utilisation)} → {pct(s.utilisationAfter)}
                  {s.cpu && (
                    <span
                      className="sub"
                      data-testid={`capacity-cpu-${s.service}`}
                      title={`From runtime metrics: ${s.cpu.processes} process${s.cpu.processes === 1 ? '' : 'es'}, ${formatMs(s.cpu.cpuMsPerCall)} of CPU per call (busy / completions); the larger of the two utilisations decides saturation`}
                    >
                      <br />
                      CPU {pct(s.cpu.utilisation)} → {pct(s.cpu.utilisationAfter)}
                    </span>
                  )}
                </td>
                <td className="n">{s.throughputPerS.toFixed(s.throughputPerS < 10 ? 1 : 0)}</td>
                <td className="n">
                  {formatMs(s.workMs)} / {formatMs(s.waitMs)}
                </td>
                <td className="n">{pct(s.fitError)}</td>
                <td className="n">
                  {s.p99Ms !== undefined ? formatMs(s.p99Ms) : '–'} →{' '}
                  {s.p99After ? formatMs(s.p99After.value) : '–'}
                </td>
                <td>
                  {serviceFlag(s) !== '' && (
                    <span className={s.saturated ? 'tag cause' : 'tag queueing'}>
                      {serviceFlag(s)}
                    </span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Panel>
  );
}
