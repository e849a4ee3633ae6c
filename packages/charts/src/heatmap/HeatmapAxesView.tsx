import type { HeatmapLayout } from './layout';
import { ChartFrame } from '../ChartFrame';
import { clickable } from '../clickable';

/**
 * The SVG around the canvas cells: host labels (buttons when `onHost` is given), the time axis
 * and the colour legend. Golden-tested like the other views; the cells are on the canvas.
 */
export function HeatmapAxesView({
  layout,
  title,
  statistic,
  gradientId,
  onHost,
  highlight,
}: {
  layout: HeatmapLayout;
  title: string;
  statistic: string;
  gradientId: string;
  onHost?: (host: string) => void;
  highlight?: ReadonlySet<string>;
}) {
  const { f, legend } = layout;
  return (
    <ChartFrame
      chart="heatmap"
      className="ts-heatmap"
      f={f}
      title={title}
      interactive={onHost !== undefined}
    >
      <defs>
        <linearGradient id={gradientId} x1="0" x2="1" y1="0" y2="0">
          <stop offset="0" className="heat-stop-0" />
          <stop offset="0.5" className="heat-stop-1" />
          <stop offset="1" className="heat-stop-2" />
        </linearGradient>
      </defs>
      {layout.rows.map((r) => {
        const hot = highlight?.has(r.host) === true;
        const props = clickable(
          onHost &&
            (() => {
              onHost(r.host);
            }),
        );
        return (
          <g
            key={r.host}
            className={`ts-heat-row${onHost ? ' is-link' : ''}${hot ? ' is-cause' : ''}`}
            {...props}
          >
            <text className="ts-row-label" x={f.left - 8} y={r.y} dy="0.32em" textAnchor="end">
              {r.host}
            </text>
          </g>
        );
      })}
      <g className="ts-axis ts-axis-x">
        {layout.timeTicks.map((t) => (
          <g key={t.value} transform={`translate(${t.pos},0)`}>
            <line className="ts-tick" y1={f.bottom} y2={f.bottom + 4} />
            <text y={f.bottom + 16} textAnchor="middle">
              {t.label}
            </text>
          </g>
        ))}
        <text className="ts-axis-title" x={f.right} y={f.bottom + 16 + 14} textAnchor="end">
          {layout.xTitle}
        </text>
      </g>
      <g className="ts-heat-legend" transform={`translate(0,${legend.y})`}>
        <text className="ts-axis-title" x={legend.x - 8} y={6} textAnchor="end">
          {`host ${statistic}`}
        </text>
        <rect
          x={legend.x}
          y={0}
          width={legend.width}
          height={10}
          fill={`url(#${gradientId})`}
          rx={2}
        />
        {legend.ticks.map((t) => (
          <text key={t.value} x={t.pos} y={24} textAnchor="middle">
            {t.label}
          </text>
        ))}
      </g>
    </ChartFrame>
  );
}
