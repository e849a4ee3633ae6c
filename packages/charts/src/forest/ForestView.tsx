import { AxisBottom } from '../Axes';
import type { ForestLayout, ForestRow } from './layout';
import { ChartFrame } from '../ChartFrame';
import { clickable } from '../clickable';

/**
 * Draws a ForestLayout. Rows for which `canOpen` holds are buttons (click or Enter opens an
 * example trace); the rest are plain.
 */
export function ForestView({
  layout,
  title,
  onOpen,
  canOpen,
}: {
  layout: ForestLayout;
  title: string;
  onOpen?: (row: ForestRow) => void;
  canOpen?: (row: ForestRow) => boolean;
}) {
  const { f } = layout;
  const half = layout.rowHeight / 2;
  return (
    <ChartFrame
      chart="forest"
      className="ts-forest"
      f={f}
      title={title}
      interactive={onOpen !== undefined}
    >
      <text className="ts-col-head" x={layout.labelX} y={18} textAnchor="end">
        value
      </text>
      <text className="ts-col-head" x={layout.detailX} y={18}>
        risk ratio [95% CI], q-value
      </text>
      <AxisBottom f={f} ticks={layout.xTicks} title={layout.xTitle} />
      <line
        className="ts-rule-one"
        x1={layout.oneX}
        x2={layout.oneX}
        y1={f.top - 6}
        y2={f.bottom}
      />
      {layout.rows.map((r) => {
        const open = onOpen && (canOpen ? canOpen(r) : true);
        return (
          <g
            key={r.key}
            className={`ts-forest-row${r.cause ? ' is-cause' : ''}${open ? ' is-link' : ''}`}
            data-row={r.key}
            {...clickable(
              open
                ? () => {
                    onOpen(r);
                  }
                : undefined,
              { space: true },
            )}
          >
            <rect
              className="ts-row-bg"
              x={0}
              y={r.y - half}
              width={f.width}
              height={layout.rowHeight}
            />
            <text className="ts-row-label" x={layout.labelX} y={r.y} dy="0.32em" textAnchor="end">
              {r.label}
            </text>
            <line className="ts-ci" x1={r.x1} x2={r.x2} y1={r.y} y2={r.y} />
            {r.openHigh && (
              <path
                className="ts-ci-open"
                d={`M${r.x2 - 5},${r.y - 4}L${r.x2},${r.y}L${r.x2 - 5},${r.y + 4}`}
              />
            )}
            {r.openLow && (
              <path
                className="ts-ci-open"
                d={`M${r.x1 + 5},${r.y - 4}L${r.x1},${r.y}L${r.x1 + 5},${r.y + 4}`}
              />
            )}
            <rect className="ts-estimate" x={r.x - 4} y={r.y - 4} width={8} height={8} />
            <text className="ts-row-detail" x={layout.detailX} y={r.y} dy="0.32em">
              <tspan className="ts-num">{r.estimate}</tspan>
              <tspan dx={8}>{r.detail}</tspan>
            </text>
            {r.cause && (
              <g className="ts-cause-tag" transform={`translate(4,${r.y - 8})`}>
                <rect width={44} height={16} rx={3} />
                <text x={22} y={8} dy="0.32em" textAnchor="middle">
                  cause
                </text>
              </g>
            )}
          </g>
        );
      })}
    </ChartFrame>
  );
}
