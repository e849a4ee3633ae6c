import { useId } from 'react';
import type { CapacityServiceView } from '../api/capacity';
import { FACTOR_STEP, factorOf, MAX_FACTOR, MAX_PAGE_MACHINES, MIN_FACTOR } from './ask';

/** The traffic factor: every request's rate times this. */
export function TrafficSlider({
  factor,
  onChange,
}: {
  factor: number;
  onChange: (f: number) => void;
}) {
  const id = useId();
  return (
    <div className="slider">
      <label htmlFor={id}>Traffic</label>
      <output htmlFor={id} data-testid="capacity-factor-value">
        ×{factor}
      </output>
      <input
        id={id}
        type="range"
        data-testid="capacity-factor"
        min={MIN_FACTOR}
        max={MAX_FACTOR}
        step={FACTOR_STEP}
        value={factor}
        aria-valuetext={`${factor} times today's traffic`}
        onChange={(e) => {
          onChange(factorOf(Number(e.target.value)));
        }}
      />
      <span className="desc">Every request&apos;s rate times this (today: ×1).</span>
    </div>
  );
}

/** Per service its instance count (recorded unless changed); its load spreads evenly over them. */
export function MachineControls({
  services,
  machines,
  onChange,
}: {
  services: CapacityServiceView[];
  machines: Record<string, number>;
  onChange: (m: Record<string, number>) => void;
}) {
  if (services.length === 0) return null;
  return (
    <fieldset className="controls" style={{ border: 0, padding: 0, margin: 0 }}>
      <legend style={{ fontWeight: 500, fontSize: 13, padding: 0, marginBottom: 8 }}>
        Machines per service
      </legend>
      {services.map((s) => (
        <MachineRow
          key={s.service}
          s={s}
          value={machines[s.service] ?? s.instances}
          set={(n) => {
            const others = Object.entries(machines).filter(([k]) => k !== s.service);
            onChange(Object.fromEntries(n === s.instances ? others : [...others, [s.service, n]]));
          }}
        />
      ))}
      <span className="desc timing">Recorded counts unless changed.</span>
    </fieldset>
  );
}

function MachineRow({
  s,
  value,
  set,
}: {
  s: CapacityServiceView;
  value: number;
  set: (n: number) => void;
}) {
  const id = useId();
  // A slider up to about four times the recorded count (at least 8), typed beyond.
  const top = Math.min(MAX_PAGE_MACHINES, Math.max(8, 4 * s.instances, value));
  return (
    <div className="slider">
      <label htmlFor={id}>{s.service}</label>
      <output htmlFor={id} data-testid={`capacity-machines-value-${s.service}`}>
        {value}
        {value !== s.instances && ` (recorded ${s.instances})`}
      </output>
      <input
        id={id}
        type="range"
        data-testid={`capacity-machines-${s.service}`}
        min={1}
        max={top}
        step={1}
        value={value}
        aria-valuetext={`${value} instances of ${s.service}`}
        onChange={(e) => {
          set(Number(e.target.value));
        }}
      />
    </div>
  );
}
