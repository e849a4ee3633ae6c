import { scaleLinear } from 'd3-scale';
import { frame, px, type Frame } from '../frame';
import { linearTicks, type Tick } from '../ticks';
import { formatMs } from '../format';

/** One row of the waterfall: a span, or a call with its answering SERVER span folded in. */
export interface WaterfallRow {
  id: string;
  label: string;
  service: string;
  depth: number;
  startMs: number;
  durationMs: number;
  /**
   * The answering SERVER span, drawn inside its call's bar (the gap is network and queueing);
   * `spanId` is its id, so selecting that span selects this row.
   */
  inner?: { startMs: number; durationMs: number; spanId?: string };
  call: boolean;
  straggler: boolean;
  error: boolean;
  /** On the trace's critical path (drawn outlined). */
  critical?: boolean;
  /** Host, sharing mode and background activity of a call. */
  host?: string;
  mode?: string;
  background?: string;
}

export interface WaterfallBar {
  id: string;
  y: number;
  x: number;
  w: number;
  inner: { x: number; w: number } | null;
  labelX: number;
  label: string;
  service: string;
  meta: string;
  duration: string;
  durationX: number;
  call: boolean;
  straggler: boolean;
  error: boolean;
  critical: boolean;
  background: boolean;
  host: string | undefined;
}

export interface WaterfallLayout {
  f: Frame;
  ticks: Tick[];
  bars: WaterfallBar[];
  rowHeight: number;
  metaX: number;
  xTitle: string;
}

const ROW = 20;
const INDENT = 12;

function clip(s: string, n: number): string {
  return n <= 1 ? '' : s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

/**
 * A trace waterfall: a label column (service and span name, indented by depth), a time axis in
 * ms from the trace's start, and a meta column with host, sharing mode and background for calls.
 * Bars are at least 1 px wide so a 50 µs span is still visible.
 */
export function layoutWaterfall(
  rows: readonly WaterfallRow[],
  totalMs: number,
  width: number,
): WaterfallLayout {
  const labelW = Math.min(300, Math.max(160, width * 0.28));
  const metaW = Math.min(300, Math.max(170, width * 0.27));
  const f = frame(width, 30 + rows.length * ROW + 4, {
    top: 30,
    right: metaW,
    bottom: 4,
    left: labelW,
  });
  const x = scaleLinear()
    .domain([0, totalMs > 0 ? totalMs : 1])
    .range([f.left, f.right - 56]);
  const ticks = linearTicks(x, Math.max(2, Math.floor(f.innerWidth / 90)), formatMs).map((t) => ({
    ...t,
    pos: px(t.pos),
  }));
  return {
    f,
    ticks,
    rowHeight: ROW,
    metaX: f.right + 10,
    xTitle: 'time since trace start',
    bars: rows.map((r, i) => {
      const x0 = x(r.startMs);
      const w = Math.max(1, x(r.startMs + r.durationMs) - x0);
      const indent = Math.min(r.depth, 8) * INDENT;
      const meta = [r.host, r.mode, r.background].filter((s) => s !== undefined).join(' · ');
      return {
        id: r.id,
        y: px(f.top + i * ROW),
        x: px(x0),
        w: px(w),
        inner: r.inner
          ? {
              x: px(x(r.inner.startMs)),
              w: px(Math.max(1, x(r.inner.startMs + r.inner.durationMs) - x(r.inner.startMs))),
            }
          : null,
        labelX: 8 + indent,
        label: clip(`${r.service}: ${r.label}`, Math.floor((labelW - 16 - indent) / 6.6)),
        service: r.service,
        meta: clip(meta, Math.floor((metaW - 14) / 6.2)),
        duration: formatMs(r.durationMs),
        durationX: px(x0 + w + 4),
        call: r.call,
        straggler: r.straggler,
        error: r.error,
        critical: r.critical === true,
        background: r.background !== undefined,
        host: r.host,
      };
    }),
  };
}
