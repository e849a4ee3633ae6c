import { AxisBottom, Legend } from '../Axes';
import type { DumbbellLayout, DumbbellRow } from './layout';
import { ChartFrame } from '../ChartFrame';
import { clickable } from '../clickable';

export function DumbbellView({
  layout,
  title,
  onOpen,
}: {
  layout: DumbbellLayout;
  title: string;
  onOpen?: (row: DumbbellRow) => void;
}) {
  const { f } = layout;
  return (
    <ChartFrame chart="dumbbell" f={f} title={title} interactive={onOpen !== undefined}>
      <AxisBottom f={f} ticks={layout.ticks} title={layout.xTitle} />
      <text className="ts-col-head" x={layout.ratioX} y={f.top - 8}>
        p99 ratio
      </text>
      {layout.rows.map((r) => (
        <g
          key={r.key}
          className={`ts-dumbbell-row${onOpen ? ' is-link' : ''}`}
          {...clickable(
            onOpen &&
              (() => {
                onOpen(r);
              }),
          )}
        >
          <title>{r.title}</title>
          <rect className="ts-row-bg" x={0} y={r.y - 13} width={f.width} height={26} />
          <text className="ts-row-label" x={f.left - 12} y={r.y} dy="0.32em" textAnchor="end">
            {r.label}
          </text>
          <line className="ts-connector" x1={r.xLeafP50} x2={r.xAllP99} y1={r.y} y2={r.y} />
          <circle className="ts-dot tone-muted" cx={r.xLeafP50} cy={r.y} r={3} />
          <circle className="ts-dot tone-base" cx={r.xLeafP99} cy={r.y} r={4} />
          <circle className="ts-dot tone-accent" cx={r.xAllP99} cy={r.y} r={5} />
          <text className="ts-row-detail ts-num" x={layout.ratioX} y={r.y} dy="0.32em">
            {r.ratio}
          </text>
        </g>
      ))}
      <Legend items={layout.legend} />
    </ChartFrame>
  );
}
