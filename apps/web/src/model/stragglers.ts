import type { StragglerRow } from '../api/contracts';
import { formatCount, formatRatio } from '@tailscope/charts';
import { STRAGGLER_DIMENSIONS } from '@tailscope/contracts';

export const BASE_DIMENSIONS = [
  { key: 'host', label: 'Host' },
  { key: 'sharing_mode', label: 'Sharing mode' },
  { key: 'background', label: 'Background activity' },
] as const;

/** `by` from the URL: known dimensions and attr:KEY entries, deduplicated, in order. */
export function parseBy(raw: string | null): string[] {
  const src = raw === null || raw.trim() === '' ? STRAGGLER_DIMENSIONS : raw;
  const out: string[] = [];
  for (const part of src.split(',')) {
    const p = part.trim();
    if (p === '' || out.includes(p)) continue;
    if (BASE_DIMENSIONS.some((d) => d.key === p) || (p.startsWith('attr:') && p.length > 5))
      out.push(p);
  }
  return out;
}

/** An attribute key as a `by` entry: trims, strips a typed "attr:" prefix. Null when empty. */
export function attributeDimension(key: string): string | null {
  const k = key
    .trim()
    .replace(/^attr:/, '')
    .trim();
  return k === '' ? null : `attr:${k}`;
}

/**
 * Rows for the forest plot: causes first (largest risk ratio first), then the rest by risk
 * ratio, so the planted cause sits on top. Rows without a straggler or call are dropped.
 */
export function orderRows(rows: readonly StragglerRow[]): StragglerRow[] {
  return rows
    .filter((r) => r.calls > 0)
    .sort(
      (a, b) =>
        Number(b.cause) - Number(a.cause) ||
        (Number.isNaN(b.riskRatio) ? -1 : b.riskRatio) -
          (Number.isNaN(a.riskRatio) ? -1 : a.riskRatio) ||
        b.stragglers - a.stragglers ||
        a.value.localeCompare(b.value),
    );
}

/** "×2.6 [×0.93, ×7.3]", or "–" when no ratio can be formed (e.g. a value on every call). */
export function ratioWithInterval(r: StragglerRow): string {
  if (Number.isNaN(r.riskRatio)) return '–';
  return `${formatRatio(r.riskRatio)} [${formatRatio(r.riskRatioLow)}, ${formatRatio(r.riskRatioHigh)}]`;
}

/**
 * The forest's empty state, agreeing with the summary above it: "No tail stragglers" only when
 * there are none; with tail requests but no ratio to draw, why (every call has the same value
 * of the dimensions asked, so there is no "without it" to compare with).
 */
export function forestEmptyText(
  tailFanouts: number,
  dimensions: readonly string[],
): {
  title: string;
  detail?: string;
} {
  if (tailFanouts === 0) return { title: 'No tail stragglers in this range' };
  const n = formatCount(tailFanouts);
  return {
    title: `${n} tail ${tailFanouts === 1 ? 'straggler' : 'stragglers'}, nothing to compare`,
    detail: `Every call has the same ${dimensions.join(', ').replace(/sharing_mode/g, 'sharing mode')}: a risk ratio needs calls with and without a value. Add a dimension.`,
  };
}
