import { AxisBottom, AxisLeft, Legend } from '../Axes';
import { formatPct } from '../format';
import type { AmplificationLayout } from './layout';
import { ChartFrame } from '../ChartFrame';
import { clickable } from '../clickable';

export function AmplificationView({
  layout,
  title,
  onPickWidth,
}: {
  layout: AmplificationLayout;
  title: string;
  /** Click (or Enter) on an observed dot: open a slow request of that width. */
  onPickWidth?: (width: number) => void;
}) {
  const { f } = layout;
  return (
    <ChartFrame chart="amplification" f={f} title={title} interactive={onPickWidth !== undefined}>
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
          <circle
            key={o.width}
            className={`ts-dot${onPickWidth ? ' is-link' : ''}`}
            cx={o.x}
            cy={o.y}
            r={onPickWidth ? 5 : 3.5}
            {...clickable(
              onPickWidth &&
                (() => {
                  onPickWidth(o.width);
                }),
            )}
          >
            <title>
              {`N = ${o.width}: observed ${formatPct(o.value)}, predicted ${formatPct(o.predicted)}`}
            </title>
          </circle>
        ))}
      </g>
      <Legend items={layout.legend} />
    </ChartFrame>
  );
}
