import { scaleLinear, scaleLog } from 'd3-scale';
import { line } from 'd3-shape';
import { format } from 'd3-format';
import { frame, px, type Frame } from '../frame';
import { linearTicks, logTicks, type Tick } from '../ticks';
import { formatMs, formatPct } from '../format';
import { legendRow, type LegendItem } from '../Axes';

/** One width of the amplification curve (`GET /api/v1/fanouts` `curve[]`); `observed` only
 * where the data has fan-outs of that width. */
export interface CurvePoint {
  width: number;
  observed?: number;
  predicted: number;
}

export interface AmplificationLayout {
  f: Frame;
  xTicks: Tick[];
  yTicks: Tick[];
  predicted: string;
  observed: { width: number; value: number; predicted: number; x: number; y: number }[];
  /** The operation's own median width, where the headline numbers are read. */
  widthRule: { x: number; label: string } | null;
  legend: LegendItem[];
  xTitle: string;
  yTitle: string;
}

/**
 * Tail probability against fan-out width N: the independence prediction 1 - F(t)^N as a line,
 * the observed P(all-leaves > t) as dots where requests of that width exist. Widths spanning
 * more than a decade and a half use a log axis.
 */
export function layoutAmplification(
  curve: readonly CurvePoint[],
  opts: { thresholdMs: number; widthP50?: number },
  size: { width: number; height: number },
): AmplificationLayout {
  const f = frame(size.width, size.height, { top: 30, right: 16, bottom: 40, left: 52 });
  const pts = [...curve].filter((c) => c.width >= 1).sort((a, b) => a.width - b.width);
  const wMin = pts[0]?.width ?? 1;
  const wMax = Math.max(pts[pts.length - 1]?.width ?? 2, wMin + 1);
  const useLog = wMax / wMin >= 30;
  const xLog = scaleLog().domain([wMin, wMax]).range([f.left, f.right]);
  const xLin = scaleLinear().domain([wMin, wMax]).range([f.left, f.right]);
  const x = (v: number) => (useLog ? xLog(v) : xLin(v));
  let yMax = 0;
  for (const p of pts) yMax = Math.max(yMax, p.predicted, p.observed ?? 0);
  const y = scaleLinear()
    .domain([0, yMax > 0 ? Math.min(1, yMax * 1.08) : 1])
    .range([f.bottom, f.top])
    .nice(5);
  const path = line<CurvePoint>()
    .x((d) => px(x(d.width)))
    .y((d) => px(y(d.predicted)));
  const widthFmt = format(',d');
  const xTicks = useLog
    ? logTicks(xLog, (v) => widthFmt(v))
    : linearTicks(xLin, 6, (v) => widthFmt(v));
  const wp = opts.widthP50;
  return {
    f,
    xTicks: xTicks.filter((t) => Number.isInteger(t.value)),
    yTicks: linearTicks(y, 5, (v) => formatPct(v)),
    predicted: path(pts) ?? '',
    observed: pts.flatMap((p) =>
      p.observed === undefined
        ? []
        : [
            {
              width: p.width,
              value: p.observed,
              predicted: p.predicted,
              x: px(x(p.width)),
              y: px(y(p.observed)),
            },
          ],
    ),
    widthRule:
      wp !== undefined && wp >= wMin && wp <= wMax
        ? { x: px(x(wp)), label: `median width ${widthFmt(wp)}` }
        : null,
    legend: legendRow(
      [
        { key: 'pred', label: 'predicted if independent: 1 − F(t)ᴺ', tone: 'base', mark: 'dash' },
        { key: 'obs', label: 'observed', tone: 'accent', mark: 'dot' },
      ],
      f.left,
      12,
    ),
    xTitle: `fan-out width N (calls per request${useLog ? ', log scale' : ''})`,
    yTitle: `P(all leaves > ${formatMs(opts.thresholdMs)})`,
  };
}
