import { px } from '../frame';
import type { HeatmapLayout, HostMatrix } from './layout';

/** A time interval on one host row to outline (an episode), epoch ms. */
export interface HeatMark {
  host: string;
  fromMs: number;
  toMs: number;
  /** Tooltip text. */
  label: string;
}

/** An outline rectangle over the heatmap cells, chart pixels. */
export interface HeatMarkBox {
  key: string;
  x: number;
  y: number;
  w: number;
  h: number;
  label: string;
}

/**
 * Outlines of marked intervals over the heatmap: one box per mark whose host is a row and whose
 * interval meets the matrix's windows, clipped to them. Marks on other hosts are dropped. O(marks).
 */
export function layoutHeatMarks(
  l: HeatmapLayout,
  m: HostMatrix,
  marks: readonly HeatMark[],
): HeatMarkBox[] {
  const rowOf = new Map(l.rows.map((r, i) => [r.host, i]));
  const endMs = m.startMs + m.windows * m.windowMs;
  const xOf = (t: number): number =>
    l.f.left + ((Math.min(endMs, Math.max(m.startMs, t)) - m.startMs) / m.windowMs) * l.cellWidth;
  const out: HeatMarkBox[] = [];
  for (const mark of marks) {
    const row = rowOf.get(mark.host);
    if (row === undefined || mark.toMs <= m.startMs || mark.fromMs >= endMs) continue;
    const x0 = xOf(mark.fromMs);
    const x1 = xOf(mark.toMs);
    out.push({
      key: `${mark.host}:${String(mark.fromMs)}`,
      x: px(x0),
      y: px(l.f.top + row * l.rowHeight),
      w: px(Math.max(1, x1 - x0)),
      h: px(l.rowHeight),
      label: mark.label,
    });
  }
  return out;
}
