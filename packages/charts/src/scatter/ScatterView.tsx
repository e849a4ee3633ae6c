import { AxisBottom, AxisLeft } from '../Axes';
import type { ScatterDot, ScatterLayout } from './layout';

/** Root duration over time; each dot a trace, a button when `onOpen` is given. */
export function ScatterView({
  layout,
  title,
  onOpen,
}: {
  layout: ScatterLayout;
  title: string;
  onOpen?: (dot: ScatterDot) => void;
}) {
  const { f } = layout;
  return (
    <svg
      className="ts-chart ts-scatter"
      data-chart="scatter"
      width={f.width}
      height={f.height}
      viewBox={`0 0 ${f.width} ${f.height}`}
      role={onOpen ? 'group' : 'img'}
      aria-label={title}
    >
      <title>{title}</title>
      <AxisLeft f={f} ticks={layout.yTicks} title={layout.yTitle} />
      <AxisBottom f={f} ticks={layout.xTicks} title={layout.xTitle} />
      {layout.dots.map((d) => (
        <circle
          key={d.key}
          className={`ts-dot ${d.error ? 'tone-accent' : 'tone-base'}${onOpen ? ' is-link' : ''}`}
          data-trace={d.key}
          cx={d.cx}
          cy={d.cy}
          r={3.5}
          {...(onOpen
            ? {
                role: 'button',
                tabIndex: 0,
                onClick: () => {
                  onOpen(d);
                },
                onKeyDown: (e: { key: string }) => {
                  if (e.key === 'Enter') onOpen(d);
                },
              }
            : {})}
        >
          <title>{d.title}</title>
        </circle>
      ))}
    </svg>
  );
}
