import type { WaterfallLayout } from './layout';
import { ChartFrame } from '../ChartFrame';
import { clickable } from '../clickable';

/**
 * The waterfall; with `onSelect`, each row is a button that selects its span (`selected` is
 * drawn highlighted), so a page can show the span's details beside it.
 */
export function WaterfallView({
  layout,
  title,
  selected,
  onSelect,
}: {
  layout: WaterfallLayout;
  title: string;
  selected?: string | undefined;
  onSelect?: ((spanId: string) => void) | undefined;
}) {
  const { f } = layout;
  const h = layout.rowHeight;
  return (
    <ChartFrame
      chart="waterfall"
      className="ts-waterfall"
      f={f}
      title={title}
      interactive={onSelect !== undefined}
    >
      <g className="ts-axis ts-axis-x">
        {layout.ticks.map((t) => (
          <g key={t.value} transform={`translate(${t.pos},0)`}>
            <line className="ts-grid" y1={f.top - 4} y2={f.bottom} />
            <text y={f.top - 10} textAnchor="middle">
              {t.label}
            </text>
          </g>
        ))}
      </g>
      <text className="ts-col-head" x={8} y={f.top - 10}>
        service: span
      </text>
      <text className="ts-col-head" x={layout.metaX} y={f.top - 10}>
        host · sharing mode · background
      </text>
      {layout.bars.map((b) => (
        <g
          key={b.id}
          className={`ts-wf-row${b.call ? ' is-call' : ''}${b.straggler ? ' is-straggler' : ''}${b.error ? ' is-error' : ''}${b.critical ? ' is-critical' : ''}${onSelect ? ' is-link' : ''}${selected === b.id ? ' is-selected' : ''}`}
          data-span={b.id}
          {...(onSelect
            ? {
                ...clickable(() => {
                  onSelect(b.id);
                }),
                'aria-pressed': selected === b.id,
              }
            : {})}
          transform={`translate(0,${b.y})`}
        >
          <rect className="ts-row-bg" x={0} y={0} width={f.width} height={h} />
          <text className="ts-row-label" x={b.labelX} y={h / 2} dy="0.32em">
            {b.label}
          </text>
          <rect className="ts-wf-bar" x={b.x} y={4} width={b.w} height={h - 8} rx={1.5} />
          {b.inner && (
            <rect className="ts-wf-inner" x={b.inner.x} y={7} width={b.inner.w} height={h - 14} />
          )}
          <text className="ts-wf-dur ts-num" x={b.durationX} y={h / 2} dy="0.32em">
            {b.duration}
          </text>
          <text
            className={`ts-row-detail${b.background ? ' has-background' : ''}`}
            x={layout.metaX}
            y={h / 2}
            dy="0.32em"
          >
            {b.meta}
          </text>
        </g>
      ))}
    </ChartFrame>
  );
}
