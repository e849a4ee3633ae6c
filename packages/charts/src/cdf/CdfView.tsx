import { AxisBottom, AxisLeft, Legend } from '../Axes';
import type { CdfLayout } from './layout';
import { ChartFrame } from '../ChartFrame';

/** Draws a CdfLayout; geometry only, no computation. */
export function CdfView({
  layout,
  title,
  onPickMs,
}: {
  layout: CdfLayout;
  title: string;
  /** Click on the plot: the latency under the pointer (opens an example request). */
  onPickMs?: (ms: number) => void;
}) {
  const { f } = layout;
  return (
    <ChartFrame chart="cdf" f={f} title={title}>
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
      {layout.whiskers.map((w) => (
        <g key={w.key} className={`ts-whisker tone-${w.tone}`}>
          <line className="ts-line" x1={w.x1} x2={w.x2} y1={w.y} y2={w.y} />
          <line className="ts-line" x1={w.x1} x2={w.x1} y1={w.y - 4} y2={w.y + 4} />
          <line className="ts-line" x1={w.x2} x2={w.x2} y1={w.y - 4} y2={w.y + 4} />
          <circle className="ts-dot" cx={w.x} cy={w.y} r={4} />
        </g>
      ))}
      <Legend items={layout.legend} />
      {onPickMs && (
        <rect
          className="ts-pick"
          x={f.left}
          y={f.top}
          width={f.innerWidth}
          height={f.innerHeight}
          fill="transparent"
          onClick={(e) => {
            const box = e.currentTarget.ownerSVGElement?.getBoundingClientRect();
            if (box) onPickMs(layout.invertX(e.clientX - box.left));
          }}
        >
          <title>Click to open an example request with about this latency</title>
        </rect>
      )}
    </ChartFrame>
  );
}
