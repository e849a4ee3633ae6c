import { AxisBottom, AxisLeft, Legend } from '../Axes';
import { formatPct } from '../format';
import type { AmplificationLayout } from './layout';

export function AmplificationView({
  layout,
  title,
}: {
  layout: AmplificationLayout;
  title: string;
}) {
  const { f } = layout;
  return (
    <svg
      className="ts-chart"
      data-chart="amplification"
      width={f.width}
      height={f.height}
      viewBox={`0 0 ${f.width} ${f.height}`}
      role="img"
      aria-label={title}
    >
      <title>{title}</title>
      <AxisLeft f={f} ticks={layout.yTicks} title={layout.yTitle} />
      <AxisBottom f={f} ticks={layout.xTicks} title={layout.xTitle} />
      {layout.widthRule && (
        <g className="ts-rule">
          <line x1={layout.widthRule.x} x2={layout.widthRule.x} y1={f.top} y2={f.bottom} />
          <text x={layout.widthRule.x + 4} y={f.bottom - 6}>
            {layout.widthRule.label}
          </text>
        </g>
      )}
      <path className="ts-line ts-dash tone-base" d={layout.predicted} />
      <g className="tone-accent">
        {layout.observed.map((o) => (
          <circle key={o.width} className="ts-dot" cx={o.x} cy={o.y} r={3.5}>
            <title>
              {`N = ${o.width}: observed ${formatPct(o.value)}, predicted ${formatPct(o.predicted)}`}
            </title>
          </circle>
        ))}
      </g>
      <Legend items={layout.legend} />
    </svg>
  );
}
