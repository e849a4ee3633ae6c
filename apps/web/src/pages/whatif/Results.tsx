import type { WhatIfResult } from '@tailscope/analysis';
import { Card, Panel } from '../../components/Panel';
import { ChartBox } from '../../components/ChartBox';
import {
  PercentileBarsView,
  layoutPercentileBars,
  CdfView,
  layoutCdf,
  type CdfSeries,
  formatChange,
  formatCount,
  formatMs,
  formatPct,
} from '@tailscope/charts';
import type { WhatIfRun } from '../../whatif/use-whatif';
import { shownResult, whatIfHeadline } from '../../model/whatif-headline';

function Headline({ r, sampleOf }: { r: WhatIfResult; sampleOf: number | undefined }) {
  const h = whatIfHeadline(r);
  return (
    <p className="verdict independent" data-testid="whatif-headline">
      <strong>
        p99 {formatMs(h.baselineMs)} →{' '}
        <span data-testid="whatif-p99" data-value={h.whatIfMs}>
          {formatMs(h.whatIfMs)}
        </span>{' '}
        (
        {h.changed
          ? formatChange(h.baselineMs, h.whatIfMs)
          : 'no change: the policy does not apply'}
        )
      </strong>
      {h.changed && (
        <>
          {' '}
          with 95% interval {formatMs(h.lowMs)} – {formatMs(h.highMs)}
        </>
      )}
      , over {formatCount(r.requests)} recorded requests
      {sampleOf !== undefined && ` (a uniform sample of ${formatCount(sampleOf)})`}.
    </p>
  );
}

function Costs({ r }: { r: WhatIfResult }) {
  return (
    <div className="cost" data-testid="whatif-costs">
      <Card label="Extra load" value={formatPct(r.extraLoad)} sub="extra calls per recorded call" />
      {r.probation && (
        <Card
          label="Capacity removed"
          value={formatPct(r.probation.capacityRemoved)}
          sub={`${r.probation.hosts.length} host${r.probation.hosts.length === 1 ? '' : 's'} on probation`}
        />
      )}
      {r.completeness && (
        <>
          <Card
            label="Answers given up"
            value={formatPct(r.completeness.lost)}
            sub="leaf answers not waited for"
          />
          <Card
            label="Complete requests"
            value={formatPct(r.completeness.requestsComplete)}
            sub="had every leaf's answer"
          />
        </>
      )}
      <Card
        label="p50 change"
        value={r.applicable ? formatMs(r.whatIf.p50.value - r.baseline.p50) : 'none'}
        sub={
          r.applicable
            ? `${formatMs(r.baseline.p50)} → ${formatMs(r.whatIf.p50.value)}`
            : 'the policy does not apply'
        }
      />
    </div>
  );
}

/** One simulation's answer: headline, percentile bars, distributions, costs and notes. */
export function Results({
  run,
  baselineCurve,
  onPickMs,
  sampleOf,
}: {
  run: WhatIfRun;
  baselineCurve: CdfSeries['points'] | null;
  onPickMs: (ms: number) => void;
  /** The operation's recorded requests when the replayed ones are a uniform sample of them. */
  sampleOf?: number | undefined;
}) {
  const r = shownResult(run.answer.result);
  const whatIfSeries: CdfSeries = {
    key: 'whatif',
    label: 'what-if',
    tone: 'accent',
    points: run.answer.whatIfCurve,
  };
  const series: CdfSeries[] = [
    ...(baselineCurve
      ? [
          {
            key: 'base',
            label: 'recorded (baseline)',
            tone: 'base' as const,
            points: baselineCurve,
          },
        ]
      : []),
    // Not applicable: the recorded curve alone (the replay's is noise around it).
    ...(r.applicable || !baselineCurve ? [whatIfSeries] : []),
  ];
  return (
    <>
      {!r.applicable && (
        <p
          className="state panel"
          data-state="empty"
          role="status"
          data-testid="whatif-not-applicable"
        >
          Does not apply: {r.reason ?? 'the policy cannot act on these calls'}. The figures below
          are the recorded ones.
        </p>
      )}
      <Headline r={r} sampleOf={sampleOf} />
      <div className="grid two">
        <Panel
          id="bars"
          title="Request latency percentiles"
          hint="baseline vs what-if, 95% bootstrap intervals"
        >
          <ChartBox>
            {(w) => (
              <PercentileBarsView
                title="Baseline and what-if request latency percentiles"
                layout={layoutPercentileBars(r.baseline, r.whatIf, w)}
              />
            )}
          </ChartBox>
        </Panel>
        <Panel
          id="whatif-cdf"
          title="Request latency distribution"
          hint="all leaves finished; click to open a recorded request"
        >
          <ChartBox>
            {(w) => (
              <CdfView
                title="Baseline and what-if request latency distribution"
                onPickMs={onPickMs}
                layout={layoutCdf(series, { width: w, height: 260 })}
              />
            )}
          </ChartBox>
        </Panel>
      </div>
      <Panel id="costs" title="What it costs">
        <Costs r={r} />
        {r.probation && r.probation.hosts.length > 0 && (
          <table style={{ marginTop: 12 }} data-testid="probation-hosts">
            <thead>
              <tr>
                <th>Host on probation</th>
                <th className="n">Time out</th>
              </tr>
            </thead>
            <tbody>
              {r.probation.hosts.map((h) => (
                <tr key={h.host}>
                  <td>{h.host}</td>
                  <td className="n">{formatMs(h.seconds * 1000)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {r.notes.length > 0 && (
          <ul className="notes">
            {r.notes.map((n) => (
              <li key={n}>{n}</li>
            ))}
          </ul>
        )}
      </Panel>
    </>
  );
}
