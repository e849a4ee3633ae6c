import { AxisLeft } from '../Axes';
import { ChartFrame } from '../ChartFrame';
import type { EvidenceLayout } from './layout';

/** The evidence series of layoutEvidence: shaded episode, the two levels, the series line. */
export function EvidenceView({ layout }: { layout: EvidenceLayout }) {
  const { f } = layout;
  return (
    <ChartFrame chart="evidence" f={f} title={layout.title}>
      <AxisLeft f={f} ticks={layout.yTicks} title="" />
      <rect
        className="ts-evidence-episode"
        x={layout.band.x}
        y={f.top}
        width={layout.band.width}
        height={f.innerHeight}
      />
      <line
        className="ts-evidence-level tone-muted"
        x1={f.left}
        x2={f.right}
        y1={layout.baselineY}
        y2={layout.baselineY}
      />
      <line
        className="ts-evidence-level tone-accent"
        x1={layout.band.x}
        x2={layout.band.x + layout.band.width}
        y1={layout.valueY}
        y2={layout.valueY}
      />
      <path className="ts-evidence-line" d={layout.path} fill="none" />
      {layout.points.map((p) => (
        <circle key={String(p.x)} className="ts-dot tone-base" cx={p.x} cy={p.y} r={2} />
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
