import type { PercentileBarsLayout } from './layout';
import { ChartFrame } from '../ChartFrame';

export function PercentileBarsView({
  layout,
  title,
}: {
  layout: PercentileBarsLayout;
  title: string;
}) {
  const { f, barHeight: h, x0 } = layout;
  return (
    <ChartFrame chart="percentile-bars" className="ts-bars" f={f} title={title}>
      {layout.rows.map((r) => (
        <g key={r.key} data-percentile={r.key}>
          <text className="ts-row-label" x={x0 - 10} y={r.y + h + 2} dy="0.32em" textAnchor="end">
            {r.label}
          </text>
          <rect
            className="ts-bar tone-muted"
            x={x0}
            y={r.y}
            width={Math.max(0, r.base.x1 - x0)}
            height={h}
          />
          <text className="ts-bar-value" x={layout.valueX} y={r.y + h / 2} dy="0.32em">
            {`baseline ${r.base.label}`}
          </text>
          <rect
            className="ts-bar tone-accent"
            x={x0}
            y={r.y + h + 4}
            width={Math.max(0, r.what.x1 - x0)}
            height={h}
          />
          <g className="ts-ci">
            <line
              x1={r.what.lowX}
              x2={r.what.highX}
              y1={r.y + h * 1.5 + 4}
              y2={r.y + h * 1.5 + 4}
            />
            <line x1={r.what.lowX} x2={r.what.lowX} y1={r.y + h + 6} y2={r.y + 2 * h + 2} />
            <line x1={r.what.highX} x2={r.what.highX} y1={r.y + h + 6} y2={r.y + 2 * h + 2} />
          </g>
          <text
            className={`ts-bar-value ts-num${r.better ? ' is-better' : r.worse ? ' is-worse' : ''}`}
            x={layout.valueX}
            y={r.y + h * 1.5 + 4}
            dy="0.32em"
            data-value={r.what.label}
          >
            {`what-if ${r.what.label} (${r.change})`}
          </text>
        </g>
      ))}
    </ChartFrame>
  );
}
