import type { Frame } from './frame';
import { px } from './frame';
import type { Tick } from './ticks';

/** Bottom axis with grid lines up through the plot, and its title (which carries the unit). */
export function AxisBottom({ f, ticks, title }: { f: Frame; ticks: Tick[]; title: string }) {
  return (
    <g className="ts-axis ts-axis-x">
      {ticks.map((t) => (
        <g key={t.value} transform={`translate(${px(t.pos)},0)`}>
          <line className="ts-grid" y1={f.top} y2={f.bottom} />
          <line className="ts-tick" y1={f.bottom} y2={f.bottom + 4} />
          <text y={f.bottom + 16} textAnchor="middle">
            {t.label}
          </text>
        </g>
      ))}
      <line className="ts-domain" x1={f.left} x2={f.right} y1={f.bottom} y2={f.bottom} />
      <text
        className="ts-axis-title"
        x={px(f.left + f.innerWidth / 2)}
        y={f.height - 4}
        textAnchor="middle"
      >
        {title}
      </text>
    </g>
  );
}

/** Left axis with horizontal grid lines; the title is rotated along the axis. */
export function AxisLeft({ f, ticks, title }: { f: Frame; ticks: Tick[]; title: string }) {
  return (
    <g className="ts-axis ts-axis-y">
      {ticks.map((t) => (
        <g key={t.value} transform={`translate(0,${px(t.pos)})`}>
          <line className="ts-grid" x1={f.left} x2={f.right} />
          <text x={f.left - 6} dy="0.32em" textAnchor="end">
            {t.label}
          </text>
        </g>
      ))}
      <text
        className="ts-axis-title"
        transform={`translate(12,${px(f.top + f.innerHeight / 2)}) rotate(-90)`}
        textAnchor="middle"
      >
        {title}
      </text>
    </g>
  );
}

export interface LegendItem {
  key: string;
  label: string;
  tone: string;
  x: number;
  y: number;
  /** Dashed line or a dot, as the series is drawn. */
  mark: 'line' | 'dash' | 'dot';
}

export function Legend({ items }: { items: LegendItem[] }) {
  return (
    <g className="ts-legend">
      {items.map((it) => (
        <g
          key={it.key}
          transform={`translate(${px(it.x)},${px(it.y)})`}
          className={`tone-${it.tone}`}
        >
          {it.mark === 'dot' ? (
            <circle className="ts-dot" cx={8} cy={0} r={3.5} />
          ) : (
            <line
              className={it.mark === 'dash' ? 'ts-line ts-dash' : 'ts-line'}
              x1={0}
              x2={16}
              y1={0}
              y2={0}
            />
          )}
          <text x={22} dy="0.32em">
            {it.label}
          </text>
        </g>
      ))}
    </g>
  );
}

/** Lays legend items out left to right from (x, y); text width is estimated, not measured. */
export function legendRow(
  entries: { key: string; label: string; tone: string; mark: LegendItem['mark'] }[],
  x: number,
  y: number,
): LegendItem[] {
  let cx = x;
  return entries.map((e) => {
    const item = { ...e, x: cx, y };
    cx += 22 + e.label.length * 6.6 + 18;
    return item;
  });
}
