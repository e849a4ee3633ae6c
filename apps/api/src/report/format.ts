/** Numbers in the report's words: ms and shares (the summary and its capacity section). */

export function fmtMs(v: number): string {
  if (!Number.isFinite(v)) return '–';
  const a = Math.abs(v);
  if (a >= 1000) return `${(v / 1000).toFixed(2)} s`;
  if (a >= 100) return `${v.toFixed(0)} ms`;
  if (a >= 10) return `${v.toFixed(1)} ms`;
  return `${v.toFixed(2)} ms`;
}

export function fmtPct(v: number): string {
  return Number.isFinite(v) ? `${(v * 100).toFixed(Math.abs(v) < 0.01 ? 2 : 1)}%` : '–';
}
