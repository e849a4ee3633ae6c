import { useMemo, type SyntheticEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { ScatterView, formatCount, formatMs, layoutScatter } from '@tailscope/charts';
import { WithRange } from '../components/Guards';
import { Panel } from '../components/Panel';
import { ChartBox } from '../components/ChartBox';
import { Empty, ErrorState, Loading } from '../components/states';
import { requestKey } from '../api/endpoints';
import { fetchTraceSearch, type TraceFilters, type TraceSearch } from '../api/traces';
import type { TimeRange } from '../state/filters';
import { useResource } from '../state/use-resource';
import { parseTraceFilters, writeTraceFilters } from '../state/trace-filters';

const utc = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').slice(0, 23);

function optionalNumber(v: FormDataEntryValue | null): number | undefined {
  if (typeof v !== 'string' || v.trim() === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

function optionalText(v: FormDataEntryValue | null): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

/** The filter form; submitting writes the filters into the URL (the search follows). */
function FilterForm({ f, apply }: { f: TraceFilters; apply: (next: TraceFilters) => void }) {
  const submit = (e: SyntheticEvent<HTMLFormElement>) => {
    e.preventDefault();
    const d = new FormData(e.currentTarget);
    const error = d.get('error');
    const order = d.get('order');
    apply({
      service: optionalText(d.get('service')),
      operation: optionalText(d.get('operation')),
      minDurationMs: optionalNumber(d.get('minMs')),
      maxDurationMs: optionalNumber(d.get('maxMs')),
      error: error === 'true' ? true : error === 'false' ? false : undefined,
      order: order === 'slowest' ? 'slowest' : undefined,
    });
  };
  return (
    <form
      className="panel trace-filters"
      aria-label="Trace search filters"
      onSubmit={submit}
      style={{ display: 'flex', flexWrap: 'wrap', gap: 12, alignItems: 'end', marginBottom: 16 }}
    >
      <label>
        Service (any span)
        <input name="service" defaultValue={f.service ?? ''} placeholder="any" />
      </label>
      <label>
        Operation (same span)
        <input name="operation" defaultValue={f.operation ?? ''} placeholder="any" />
      </label>
      <label>
        Min duration (ms)
        <input name="minMs" inputMode="decimal" defaultValue={f.minDurationMs ?? ''} size={8} />
      </label>
      <label>
        Max duration (ms)
        <input name="maxMs" inputMode="decimal" defaultValue={f.maxDurationMs ?? ''} size={8} />
      </label>
      <label>
        Errors
        <select name="error" defaultValue={f.error === undefined ? '' : String(f.error)}>
          <option value="">any</option>
          <option value="true">with errors</option>
          <option value="false">without errors</option>
        </select>
      </label>
      <label>
        Order
        <select name="order" defaultValue={f.order ?? 'newest'}>
          <option value="newest">newest first</option>
          <option value="slowest">slowest first</option>
        </select>
      </label>
      <button type="submit" className="primary">
        Search
      </button>
    </form>
  );
}

function Results({ data }: { data: TraceSearch }) {
  const navigate = useNavigate();
  const points = useMemo(
    () =>
      data.traces.map((t) => ({
        key: t.traceId,
        tMs: t.startMs,
        durationMs: t.durationMs,
        error: t.errorCount > 0,
      })),
    [data],
  );
  if (data.traces.length === 0)
    return (
      <Empty title="No trace matches">
        <p>Widen the time range or loosen the filters.</p>
      </Empty>
    );
  return (
    <>
      <Panel
        id="trace-scatter"
        title="Duration over time"
        hint="one dot per trace (orange: with errors); click a dot to open the trace"
      >
        <ChartBox minWidth={480}>
          {(w) => (
            <ScatterView
              title="Root duration over time"
              layout={layoutScatter(points, w, 280)}
              onOpen={(d) => {
                void navigate(`/traces/${d.key}`);
              }}
            />
          )}
        </ChartBox>
      </Panel>
      <Panel
        id="trace-table"
        title={`${formatCount(data.traces.length)} traces${data.more ? ` (the first ${formatCount(data.limit)}; more match)` : ''}`}
      >
        <div className="table-wrap">
          <table data-testid="trace-table">
            <thead>
              <tr>
                <th>Trace</th>
                <th>Root</th>
                <th>Matched span</th>
                <th>Started (UTC)</th>
                <th className="n">Duration</th>
                <th className="n">Spans</th>
                <th className="n">Errors</th>
              </tr>
            </thead>
            <tbody>
              {data.traces.map((t) => (
                <tr key={t.traceId} className={t.errorCount > 0 ? 'is-cause' : ''}>
                  <td className="mono">
                    <Link to={`/traces/${t.traceId}`}>{t.traceId.slice(0, 16)}…</Link>
                  </td>
                  <td>
                    {t.rootService}: {t.rootOperation}
                  </td>
                  <td data-testid="matched-span">
                    {t.matchedSpan
                      ? `${t.matchedSpan.service}: ${t.matchedSpan.operation} (${formatMs(t.matchedSpan.durationMs)})`
                      : '—'}
                  </td>
                  <td className="mono">{utc(t.startMs)}</td>
                  <td className="n">{formatMs(t.durationMs)}</td>
                  <td className="n">{formatCount(t.spanCount)}</td>
                  <td className="n">{formatCount(t.errorCount)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </Panel>
    </>
  );
}

function Search({ range, rangeKey, f }: { range: TimeRange; rangeKey: string; f: TraceFilters }) {
  const res = useResource(requestKey('traces', { rangeKey, ...f }), (signal) =>
    fetchTraceSearch(range, f, signal),
  );
  if (res.state === 'error') return <ErrorState error={res.error} what="the trace search" />;
  if (res.state !== 'ready') return <Loading label="Searching traces" />;
  return <Results data={res.data} />;
}

/** Trace search: filters in the URL, a duration-over-time scatter and a table of traces. */
export function Traces() {
  const [params, setParams] = useSearchParams();
  const f = useMemo(() => parseTraceFilters(params), [params]);
  const apply = (next: TraceFilters) => {
    setParams((p) => writeTraceFilters(p, next));
  };
  return (
    <>
      <div className="page-head">
        <h1>Traces</h1>
        <p>
          Find requests with a span of a service and operation (and its duration), or with errors;
          each row names its root and the first span that matched.
        </p>
      </div>
      {/* Keyed by the URL's filters so the form resets when they change elsewhere (back). */}
      <FilterForm key={JSON.stringify(f)} f={f} apply={apply} />
      {/* The search reads the newest spans too: its reads are cheap, and the newest are looked for. */}
      <WithRange toNewest>
        {(r) => (
          <div className="grid">
            <Search range={r.range} rangeKey={r.key} f={f} />
          </div>
        )}
      </WithRange>
    </>
  );
}
