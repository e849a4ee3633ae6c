import { useId, useState, useSyncExternalStore } from 'react';
import { utcFormat } from 'd3-time-format';
import { nanoToMs, RANGE_PRESETS, type RangeKey } from '../state/filters';
import { useFilters, useRange, useStore } from '../state/store-context';
import { formatMs } from '@tailscope/charts';
import { oldestAnswer, subscribeAnswerAges } from '../api/shared-answers';

const toInput = utcFormat('%Y-%m-%dT%H:%M:%S');
const show = utcFormat('%Y-%m-%d %H:%M:%S');

function fromInput(v: string): number | undefined {
  const t = Date.parse(`${v}Z`);
  return Number.isFinite(t) ? t : undefined;
}

/** Presets, or a custom UTC range; the choice lives in the URL. */
export function TimeRangePicker() {
  const [filters, setFilters] = useFilters();
  const range = useRange();
  const { refresh } = useStore();
  const id = useId();
  const [draft, setDraft] = useState<{ from: string; to: string } | null>(null);
  const current = range.state === 'ready' ? range.range : null;
  // Answers the server served from its last answer over a range ending now (up to 5 minutes old).
  const oldest = useSyncExternalStore(subscribeAnswerAges, oldestAnswer);
  // Analyses end where the server's stored data does, a few seconds before the newest span.
  const settledLagMs =
    range.state === 'ready' && range.settled
      ? Math.max(0, (nanoToMs(range.stats.newestUnixNano) ?? range.range.toMs) - range.range.toMs)
      : null;

  const choose = (key: RangeKey) => {
    if (key === 'custom') {
      const from = current ? toInput(new Date(current.fromMs)) : '';
      const to = current ? toInput(new Date(current.toMs)) : '';
      setDraft({ from, to });
      return;
    }
    setDraft(null);
    setFilters({ range: key });
  };
  const apply = () => {
    if (!draft) return;
    const from = fromInput(draft.from);
    const to = fromInput(draft.to);
    if (from !== undefined && to !== undefined && to > from) {
      setFilters({ range: 'custom', from, to });
      setDraft(null);
    }
  };
  const shown: RangeKey = draft ? 'custom' : filters.range;
  return (
    <div
      className="filters-range"
      style={{ display: 'flex', gap: 8, alignItems: 'end', flexWrap: 'wrap' }}
    >
      <label className="field" htmlFor={`${id}-range`}>
        <span>Time range</span>
        <select
          id={`${id}-range`}
          data-testid="time-range"
          value={shown}
          onChange={(e) => {
            choose(e.target.value as RangeKey);
          }}
        >
          {RANGE_PRESETS.map((p) => (
            <option key={p.key} value={p.key}>
              {p.label}
            </option>
          ))}
          <option value="custom">Custom (UTC)…</option>
        </select>
      </label>
      {draft && (
        <>
          <label className="field">
            <span>From (UTC)</span>
            <input
              type="datetime-local"
              step={1}
              value={draft.from}
              onChange={(e) => {
                setDraft({ ...draft, from: e.target.value });
              }}
            />
          </label>
          <label className="field">
            <span>To (UTC)</span>
            <input
              type="datetime-local"
              step={1}
              value={draft.to}
              onChange={(e) => {
                setDraft({ ...draft, to: e.target.value });
              }}
            />
          </label>
          <button type="button" className="primary" onClick={apply}>
            Apply
          </button>
        </>
      )}
      {current && !draft && (
        <span
          className="timing"
          style={{ paddingBottom: 7 }}
          data-range={`${current.fromMs}-${current.toMs}`}
        >
          {show(new Date(current.fromMs))} – {show(new Date(current.toMs))} UTC (
          {formatMs(current.toMs - current.fromMs)})
        </span>
      )}
      {settledLagMs !== null && !draft && (
        <span
          className="timing"
          style={{ paddingBottom: 7 }}
          data-testid="range-settled"
          title="The newest seconds are still arriving (spans are exported in batches and traces finish late): analyses end where the server has stored their fan-outs and episode series, which trails the newest span by 10-35 s. The trace search reads up to the newest span."
        >
          analysed to {formatMs(settledLagMs)} before the newest span
        </span>
      )}
      {oldest && !draft && (
        <span
          className="timing"
          style={{ paddingBottom: 7 }}
          data-testid="answer-age"
          title="Over a range that ends now, the server answers a slow question from its last answer (at most 5 minutes old) and computes a new one behind it: the next visit shows that. Refresh asks for the newest."
        >
          some answers {formatMs(oldest.ageMs)} old
        </span>
      )}
      <button type="button" onClick={refresh} title="Read the store again (new spans, new 'now')">
        Refresh
      </button>
    </div>
  );
}
