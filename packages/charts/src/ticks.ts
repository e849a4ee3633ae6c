import type { ScaleContinuousNumeric, ScaleLogarithmic } from 'd3-scale';

export interface Tick {
  value: number;
  /** Position in pixels along the axis. */
  pos: number;
  label: string;
}

/**
 * Ticks for a log axis: decades (1, 10, 100...) and, when the domain spans few decades, 2 and 5
 * between them, so a narrow latency range still gets three or more labels.
 */
export function logTicks(
  scale: ScaleLogarithmic<number, number>,
  fmt: (v: number) => string,
): Tick[] {
  const [d0, d1] = scale.domain() as [number, number];
  const lo = Math.min(d0, d1);
  const hi = Math.max(d0, d1);
  if (!(lo > 0) || !(hi > lo)) return [];
  const decades = Math.log10(hi / lo);
  const steps = decades <= 1.5 ? [1, 2, 5] : decades <= 3 ? [1, 3] : [1];
  const out: Tick[] = [];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
    for (const s of steps) {
      const v = s * 10 ** e;
      if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9))
        out.push({ value: v, pos: scale(v), label: fmt(v) });
    }
  }
  if (decades > 6) return out.filter((_, i) => i % 2 === 0);
  return out;
}

export function linearTicks(
  scale: ScaleContinuousNumeric<number, number>,
  count: number,
  fmt: (v: number) => string,
): Tick[] {
  return scale.ticks(count).map((v) => ({ value: v, pos: scale(v), label: fmt(v) }));
}
