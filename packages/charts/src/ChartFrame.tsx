import type { ReactNode } from 'react';
import type { Frame } from './frame';

/**
 * The SVG every chart view draws into: its size and viewBox from the layout's frame, its name
 * (`data-chart`, for tests and styles) and its title, spoken and shown on hover. An image,
 * unless it holds buttons (`interactive`): then a group, so they stay reachable.
 */
export function ChartFrame({
  chart,
  className,
  f,
  title,
  interactive = false,
  children,
}: {
  /** The chart's name, as `data-chart`. */
  chart: string;
  /** Classes besides `ts-chart`. */
  className?: string;
  f: Frame;
  title: string;
  interactive?: boolean;
  children: ReactNode;
}) {
  return (
    <svg
      className={className === undefined ? 'ts-chart' : `ts-chart ${className}`}
      data-chart={chart}
      width={f.width}
      height={f.height}
      viewBox={`0 0 ${String(f.width)} ${String(f.height)}`}
      role={interactive ? 'group' : 'img'}
      aria-label={title}
    >
      <title>{title}</title>
      {children}
    </svg>
  );
}
