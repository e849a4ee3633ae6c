// The time range and filters every page shares, kept in the URL so a link reproduces the view.
// Pure: parse and write URLSearchParams; resolving a relative range takes `now` as an argument.
import { SETTLED_LAG_MS } from '@tailscope/contracts';

export const RANGE_PRESETS = [
  { key: 'all', label: 'All data', ms: 0 },
  { key: '15m', label: 'Last 15 minutes', ms: 15 * 60_000 },
  { key: '1h', label: 'Last hour', ms: 3_600_000 },
  { key: '6h', label: 'Last 6 hours', ms: 6 * 3_600_000 },
  { key: '24h', label: 'Last 24 hours', ms: 24 * 3_600_000 },
  { key: '7d', label: 'Last 7 days', ms: 7 * 24 * 3_600_000 },
] as const;

type PresetKey = (typeof RANGE_PRESETS)[number]['key'];
export type RangeKey = PresetKey | 'custom';

export interface Filters {
  range: RangeKey;
  /** Epoch ms, only for range 'custom'. */
  from?: number;
  to?: number;
  parentService?: string;
  leafService?: string;
  leafOperation?: string;
}

/** URL keys this module owns; pages keep their own keys (policy, by...) beside them. */
export const FILTER_KEYS = ['range', 'from', 'to', 'parentService', 'leafService', 'leafOperation'];

function epochMs(raw: string | null): number | undefined {
  if (raw === null || raw === '') return undefined;
  const n = /^\d+$/.test(raw) ? Number(raw) : Date.parse(raw);
  return Number.isFinite(n) ? n : undefined;
}

function text(raw: string | null): string | undefined {
  return raw === null || raw === '' ? undefined : raw;
}

export function parseFilters(params: URLSearchParams): Filters {
  const f: Filters = { range: 'all' };
  const from = epochMs(params.get('from'));
  const to = epochMs(params.get('to'));
  const range = params.get('range');
  if (from !== undefined && to !== undefined && to > from) {
    f.range = 'custom';
    f.from = from;
    f.to = to;
  } else if (RANGE_PRESETS.some((p) => p.key === range)) {
    f.range = range as PresetKey;
  }
  const parentService = text(params.get('parentService'));
  const leafService = text(params.get('leafService'));
  const leafOperation = text(params.get('leafOperation'));
  if (parentService !== undefined) f.parentService = parentService;
  if (leafService !== undefined) f.leafService = leafService;
  if (leafOperation !== undefined) f.leafOperation = leafOperation;
  return f;
}

/** Writes `f` over `base` (other pages' keys survive); defaults are left out of the URL. */
export function writeFilters(base: URLSearchParams, f: Filters): URLSearchParams {
  const out = new URLSearchParams(base);
  for (const k of FILTER_KEYS) out.delete(k);
  if (f.range === 'custom' && f.from !== undefined && f.to !== undefined) {
    out.set('from', String(Math.round(f.from)));
    out.set('to', String(Math.round(f.to)));
  } else if (f.range !== 'all') {
    out.set('range', f.range);
  }
  if (f.parentService !== undefined) out.set('parentService', f.parentService);
  if (f.leafService !== undefined) out.set('leafService', f.leafService);
  if (f.leafOperation !== undefined) out.set('leafOperation', f.leafOperation);
  out.sort();
  return out;
}

export interface TimeRange {
  fromMs: number;
  toMs: number;
}

/**
 * The concrete window for the API. 'all' spans the store's oldest to newest span (null when
 * the store is empty); presets end at `nowMs`.
 */
export function resolveRange(
  f: Filters,
  nowMs: number,
  store: { oldestMs: number; newestMs: number } | null,
): TimeRange | null {
  if (f.range === 'custom' && f.from !== undefined && f.to !== undefined)
    return { fromMs: f.from, toMs: f.to };
  const preset = RANGE_PRESETS.find((p) => p.key === f.range);
  if (preset && preset.ms > 0) return { fromMs: nowMs - preset.ms, toMs: nowMs };
  if (!store) return null;
  // +1 ms: the API's `to` is exclusive and the newest span must be in.
  return { fromMs: Math.floor(store.oldestMs), toMs: Math.ceil(store.newestMs) + 1 };
}

/** The analyses stop at the stored data's end only when it trails now by less than this. */
export { SETTLED_LAG_MS };

/**
 * A range ending past the stored data's end (the server's `settledUnixNano`, as ms) ends there
 * instead while the store is receiving: the end is less than SETTLED_LAG_MS before now (and
 * before the newest span, which is newer). The newest seconds are still arriving, and every
 * answer over them detected them again live (issue 24). Otherwise unchanged: nothing stored,
 * stored past the newest span, a store whose newest spans are older (data loaded from the past,
 * whose chunks the server is still storing) or a materializer far behind, a custom range, a
 * range ending before it. `cut`: whether it was cut.
 */
export function settleRange(
  range: TimeRange,
  f: Filters,
  store: { newestMs: number; settledMs: number | null },
  nowMs: number,
): TimeRange & { cut: boolean } {
  const s = store.settledMs;
  const live = s !== null && s <= store.newestMs && nowMs - s < SETTLED_LAG_MS;
  if (f.range === 'custom' || !live || range.toMs <= s || range.fromMs >= s)
    return { ...range, cut: false };
  return { fromMs: range.fromMs, toMs: s, cut: true };
}

/** Nanoseconds since the epoch as a decimal string (the API's form) to epoch ms. */
export function nanoToMs(nano: string | null): number | null {
  if (nano === null || nano === '' || !/^\d+$/.test(nano)) return null;
  // Split to keep precision: a 19-digit nanosecond count does not fit a float exactly.
  const ms =
    nano.length > 6 ? Number(nano.slice(0, -6)) + Number(nano.slice(-6)) / 1e6 : Number(nano) / 1e6;
  return ms;
}
