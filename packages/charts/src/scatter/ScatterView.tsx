import { AxisBottom, AxisLeft } from '../Axes';
import type { ScatterDot, ScatterLayout } from './layout';
import { ChartFrame } from '../ChartFrame';
import { clickable } from '../clickable';

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
    <ChartFrame
      chart="scatter"
      className="ts-scatter"
      f={f}
      title={title}
      interactive={onOpen !== undefined}
    >
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
          {...clickable(
            onOpen &&
              (() => {
                onOpen(d);
              }),
          )}
        >
          <title>{d.title}</title>
        </circle>
      ))}
    </ChartFrame>
  );
}
