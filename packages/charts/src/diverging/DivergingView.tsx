import { AxisBottom, Legend } from '../Axes';
import type { DivergingLayout, DivergingRow } from './layout';
import { ChartFrame } from '../ChartFrame';
import { clickable } from '../clickable';

/** Slow against typical per row, bars diverging from one centre line. */
export function DivergingView({
  layout,
  title,
  onOpen,
}: {
  layout: DivergingLayout;
  title: string;
  onOpen?: (row: DivergingRow) => void;
}) {
  const { f } = layout;
  return (
    <ChartFrame
      chart="diverging"
      className="ts-diverging"
      f={f}
      title={title}
      interactive={onOpen !== undefined}
    >
      <AxisBottom f={f} ticks={layout.ticks} title={layout.xTitle} />
      <text className="ts-col-head" x={layout.deltaX} y={f.top - 8}>
        Δ
      </text>
      {layout.rows.map((r) => (
        <g
          key={r.key}
          className={`ts-diverging-row${onOpen ? ' is-link' : ''}`}
          {...clickable(
            onOpen &&
              (() => {
                onOpen(r);
              }),
          )}
        >
          <title>{r.title}</title>
          <rect className="ts-row-bg" x={0} y={r.y - 12} width={f.width} height={24} />
          <text className="ts-row-label" x={f.left - 12} y={r.y} dy="0.32em" textAnchor="end">
            {r.label}
          </text>
          <rect
            className="ts-bar tone-muted"
            x={r.typical.x}
            y={r.y - 7}
            width={r.typical.w}
            height={14}
          />
          <rect
            className="ts-bar tone-accent"
            x={r.slow.x}
            y={r.y - 7}
            width={r.slow.w}
            height={14}
          />
          <text className="ts-row-detail ts-num" x={layout.deltaX} y={r.y} dy="0.32em">
            {r.delta}
          </text>
        </g>
      ))}
      <line
        className="ts-domain"
        x1={layout.centerX}
        x2={layout.centerX}
        y1={f.top}
        y2={f.bottom}
      />
      <Legend items={layout.legend} />
    </ChartFrame>
  );
}
