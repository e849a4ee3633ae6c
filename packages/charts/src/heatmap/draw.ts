import type { HeatmapLayout } from './layout';

/** The part of a 2D canvas context the heatmap uses (a recording fake in tests). */
export interface HeatmapContext {
  fillStyle: string | CanvasGradient | CanvasPattern;
  setTransform(a: number, b: number, c: number, d: number, e: number, f: number): void;
  clearRect(x: number, y: number, w: number, h: number): void;
  fillRect(x: number, y: number, w: number, h: number): void;
}

/** Colour steps: cells are drawn grouped by step, one fillStyle change per step. */
const STEPS = 48;

/**
 * Draws the heatmap cells; pure apart from the context it is given. `color(t)` maps [0, 1] to
 * a CSS colour (the page passes the theme's ramp). Cells overlap by 0.5 px so no hairline gaps
 * show between them at fractional widths.
 */
export function drawHeatmap(
  ctx: HeatmapContext,
  l: HeatmapLayout,
  color: (t: number) => string,
  dpr: number,
): void {
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, l.f.width, l.f.height);
  const buckets: number[][] = Array.from({ length: STEPS + 1 }, () => []);
  l.cells.forEach((c, i) => buckets[Math.round(c.t * STEPS)]?.push(i));
  buckets.forEach((idx, step) => {
    if (idx.length === 0) return;
    ctx.fillStyle = color(step / STEPS);
    for (const i of idx) {
      const c = l.cells[i];
      if (c) ctx.fillRect(c.x, c.y, c.w + 0.5, c.h - 1);
    }
  });
}
