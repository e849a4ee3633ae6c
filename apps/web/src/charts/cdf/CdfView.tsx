import { AxisBottom, AxisLeft, Legend } from '../Axes';
import type { CdfLayout } from './layout';

/** Draws a CdfLayout; geometry only, no computation. */
export function CdfView({ layout, title }: { layout: CdfLayout; title: string }) {
  const { f } = layout;
  return (
    <svg
      className="ts-chart"
      data-chart="cdf"
      width={f.width}
      height={f.height}
      viewBox={`0 0 ${f.width} ${f.height}`}
      role="img"
      aria-label={title}
    >
      <title>{title}</title>
      <AxisLeft f={f} ticks={layout.yTicks} title={layout.yTitle} />
      <AxisBottom f={f} ticks={layout.xTicks} title={layout.xTitle} />
      {layout.rules.map((r) => (
        <g key={r.key} className="ts-rule">
          <line x1={r.x} x2={r.x} y1={f.top} y2={f.bottom} />
          <text x={r.x + 4} y={f.top + 10}>
            {r.label}
          </text>
        </g>
      ))}
      {layout.lines.map((l) => (
        <path
          key={l.key}
          className={`ts-line tone-${l.tone}${l.dashed ? ' ts-dash' : ''}`}
          d={l.d}
          data-series={l.key}
        />
      ))}
      <Legend items={layout.legend} />
    </svg>
  );
}
