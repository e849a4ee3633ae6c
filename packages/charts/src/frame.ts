/** The plotting area inside a chart's margins, in pixels. */
export interface Frame {
  width: number;
  height: number;
  left: number;
  top: number;
  right: number;
  bottom: number;
  /** Inner width and height (never negative). */
  innerWidth: number;
  innerHeight: number;
}

export interface Margin {
  top: number;
  right: number;
  bottom: number;
  left: number;
}

export function frame(width: number, height: number, m: Margin): Frame {
  return {
    width,
    height,
    left: m.left,
    top: m.top,
    right: width - m.right,
    bottom: height - m.bottom,
    innerWidth: Math.max(0, width - m.left - m.right),
    innerHeight: Math.max(0, height - m.top - m.bottom),
  };
}

/** Rounds geometry to 0.1 px: crisp enough for SVG, and keeps markup (and golden files) short. */
export function px(v: number): number {
  return Math.round(v * 10) / 10;
}
