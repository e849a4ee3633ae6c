import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { scaleLinear } from 'd3-scale';
import { cellAt, layoutHeatmap, type HostMatrix } from './layout';
import { drawHeatmap } from './draw';
import { HeatmapAxesView } from './HeatmapAxesView';
import { layoutHeatMarks, type HeatMark } from './marks';
import { formatCount, formatMs } from '../format';
import { utcFormat } from 'd3-time-format';

const time = utcFormat('%H:%M:%S');

/** The theme's heat ramp, read from the CSS variables (so dark mode gets its own). */
function themeRamp(el: Element): (t: number) => string {
  const css = getComputedStyle(el);
  const stops = ['--heat-0', '--heat-1', '--heat-2'].map(
    (v) => css.getPropertyValue(v).trim() || '#888',
  );
  return scaleLinear<string>().domain([0, 0.5, 1]).range(stops).clamp(true);
}

/**
 * Host x time heatmap: cells on a canvas (thousands of them), labels and legend in SVG on top.
 * Hover shows the cell; a click opens an example trace of that host in that window.
 */
export function HeatmapChart({
  matrix,
  width,
  onPick,
  highlight,
  marks,
}: {
  matrix: HostMatrix;
  width: number;
  onPick?: (q: { host: string; fromMs?: number; toMs?: number }) => void;
  highlight?: ReadonlySet<string>;
  /** Intervals to outline (episodes), drawn over the cells. */
  marks?: readonly HeatMark[];
}) {
  const layout = useMemo(() => layoutHeatmap(matrix, width), [matrix, width]);
  const boxes = useMemo(
    () => (marks ? layoutHeatMarks(layout, matrix, marks) : []),
    [layout, matrix, marks],
  );
  const canvas = useRef<HTMLCanvasElement>(null);
  const [hover, setHover] = useState<{ x: number; y: number; text: string } | null>(null);
  const gradientId = `${useId()}-heat`;
  const scheme = useColorScheme();

  useEffect(() => {
    const c = canvas.current;
    const ctx = c?.getContext('2d');
    if (!c || !ctx) return;
    const dpr = window.devicePixelRatio || 1;
    c.width = Math.round(layout.f.width * dpr);
    c.height = Math.round(layout.f.height * dpr);
    drawHeatmap(ctx, layout, themeRamp(c), dpr);
  }, [layout, scheme]);

  const describe = (x: number, y: number) => {
    const hit = cellAt(layout, matrix, x, y);
    if (!hit) return null;
    const h = matrix.hosts.indexOf(hit.host);
    const w = Math.floor((hit.startMs - matrix.startMs) / matrix.windowMs);
    const v = matrix.values[h * matrix.windows + w] ?? NaN;
    const n = matrix.calls[h * matrix.windows + w] ?? 0;
    return {
      hit,
      text: `${hit.host} · ${time(new Date(hit.startMs))} UTC · ${matrix.statistic} ${formatMs(v)} · ${formatCount(n)} calls`,
    };
  };

  return (
    <div className="heatmap" style={{ width: layout.f.width, height: layout.f.height }}>
      <canvas
        ref={canvas}
        data-testid="heatmap-canvas"
        style={{
          width: layout.f.width,
          height: layout.f.height,
          cursor: onPick ? 'pointer' : 'default',
        }}
        onMouseMove={(e) => {
          const r = e.currentTarget.getBoundingClientRect();
          const d = describe(e.clientX - r.left, e.clientY - r.top);
          setHover(d ? { x: e.clientX - r.left, y: e.clientY - r.top, text: d.text } : null);
        }}
        onMouseLeave={() => {
          setHover(null);
        }}
        onClick={(e) => {
          const r = e.currentTarget.getBoundingClientRect();
          const d = describe(e.clientX - r.left, e.clientY - r.top);
          if (d && onPick) onPick({ host: d.hit.host, fromMs: d.hit.startMs, toMs: d.hit.endMs });
        }}
      />
      <HeatmapAxesView
        layout={layout}
        title={`Host ${matrix.statistic} latency over time`}
        statistic={matrix.statistic}
        gradientId={gradientId}
        {...(onPick
          ? {
              onHost: (host: string) => {
                onPick({ host });
              },
            }
          : {})}
        {...(highlight ? { highlight } : {})}
      />
      {boxes.length > 0 && (
        <svg
          className="ts-heat-marks"
          width={layout.f.width}
          height={layout.f.height}
          style={{ position: 'absolute', left: 0, top: 0, pointerEvents: 'none' }}
          aria-hidden="true"
        >
          {boxes.map((b) => (
            <rect
              key={b.key}
              data-testid="episode-mark"
              x={b.x}
              y={b.y}
              width={b.w}
              height={b.h}
              fill="none"
              stroke="currentColor"
              strokeWidth={2}
              strokeDasharray="4 2"
            >
              <title>{b.label}</title>
            </rect>
          ))}
        </svg>
      )}
      {hover && (
        <div
          className="tooltip"
          style={{ left: Math.min(hover.x + 12, layout.f.width - 260), top: hover.y + 14 }}
        >
          {hover.text}
        </div>
      )}
    </div>
  );
}

/** Re-renders when the colour scheme flips, so the canvas picks up the other ramp. */
function useColorScheme(): 'light' | 'dark' {
  const [dark, setDark] = useState(
    () =>
      typeof window !== 'undefined' && window.matchMedia('(prefers-color-scheme: dark)').matches,
  );
  useEffect(() => {
    const query = window.matchMedia('(prefers-color-scheme: dark)');
    const on = (e: MediaQueryListEvent) => {
      setDark(e.matches);
    };
    query.addEventListener('change', on);
    return () => {
      query.removeEventListener('change', on);
    };
  }, []);
  return dark ? 'dark' : 'light';
}
