import { AxisLeft } from '../Axes';
import { ChartFrame } from '../ChartFrame';
import type { ReadingLayout } from './reading';

/** A measured cause's reading (layoutReading): level, value, baseline, the series line. */
export function ReadingView({ layout }: { layout: ReadingLayout }) {
  const { f } = layout;
  const level = (y: number, className: string) => (
    <line className={className} x1={f.left} x2={f.right} y1={y} y2={y} />
  );
  return (
    <ChartFrame chart="reading" f={f} title={layout.title}>
      <AxisLeft f={f} ticks={layout.yTicks} title="" />
      {layout.levelY !== undefined && level(layout.levelY, 'ts-reading-level')}
      {layout.baselineY !== undefined && level(layout.baselineY, 'ts-evidence-level tone-muted')}
      {level(layout.valueY, 'ts-evidence-level tone-accent')}
      <path className="ts-evidence-line" d={layout.path} fill="none" />
      {layout.points.map((p) => (
        <circle
          key={String(p.x)}
          className={`ts-dot ${p.above ? 'tone-accent' : 'tone-base'}`}
          cx={p.x}
          cy={p.y}
          r={2}
        />
      ))}
      {layout.xLabels.map((l) => (
        <text
          key={l.anchor}
          className="ts-axis-label"
          x={l.x}
          y={f.height - 4}
          textAnchor={l.anchor}
        >
          {l.label}
        </text>
      ))}
    </ChartFrame>
  );
}
