import { describe, expect, it } from 'vitest';
import { evidenceSeries, type EvidenceRowOf } from './evidence-series';
import { hostPeerEvidence } from './host-evidence';

const rows = (host: string, signal: string, metric: string, values: (number | null)[], at = 0) =>
  values.flatMap((value, i): EvidenceRowOf[] =>
    value === null ? [] : [{ host, signal, metric, window: at + i, value }],
  );

describe('hostPeerEvidence', () => {
  const s = evidenceSeries([
    ...rows('h3', 'neighbour-pressure', 'system.cpu.time', [0.3, null, 0.5, 0.4], 10),
    ...rows('h3', 'gc-pause', 'v8js.gc.duration', [0.01, 0.01]),
    ...rows('h3', 'network', 'system.network.errors', [2]),
    ...rows('h1', 'neighbour-pressure', 'system.cpu.time', [0.01, 0.03]),
    // h2's steal comes from another metric: not a peer of h3's system.cpu.time.
    ...rows('h2', 'neighbour-pressure', 'system.cpu.utilization', [0.9]),
    ...rows('h2', 'gc-pause', 'v8js.gc.duration', [0, 0]),
    ...rows('h4', 'neighbour-pressure', 'system.cpu.time', [0.06]),
  ]);

  it("reads each of the host's series against the same series on the other hosts", () => {
    const out = hostPeerEvidence(s, 'h3');
    // Worst ratio first, as an episode's evidence: a zero baseline outranks any finite ratio.
    expect(out.map((e) => e.signal)).toEqual(['gc-pause', 'neighbour-pressure', 'network']);
    const [gc, steal, net] = out;
    // h3's mean 0.4 over its 3 windows against (0.02 + 0.06) / 2: h1 and h4 weigh the same.
    expect(steal?.value).toBeCloseTo(0.4, 12);
    expect(steal?.baseline).toBeCloseTo(0.04, 12);
    expect(steal?.ratio).toBeCloseTo(10, 9);
    expect(steal).toMatchObject({ host: 'h3', metric: 'system.cpu.time', peers: 2, windows: 3 });
    expect(steal?.series).toEqual({ fromWindow: 10, step: 1, values: [0.3, null, 0.5, 0.4] });
    // A zero baseline and a value: as large as a ratio gets.
    expect(gc?.ratio).toBe(Number.MAX_VALUE);
    // No other host sends network errors: no baseline, ranked last.
    expect(net?.peers).toBe(0);
    expect(net?.baseline).toBeNaN();
    expect(net?.ratio).toBeNaN();
  });

  it('reads only the windows asked', () => {
    const [steal] = hostPeerEvidence(s, 'h3', 10, { from: 12, to: 14 }).filter(
      (e) => e.signal === 'neighbour-pressure',
    );
    expect(steal?.value).toBeCloseTo(0.45, 12);
    expect(steal?.series).toEqual({ fromWindow: 12, step: 1, values: [0.5, 0.4] });
    // h1's and h4's steal lie in windows 0-1: no peer inside.
    expect(steal?.peers).toBe(0);
  });

  it('gives nothing for a host without series, and keeps at most max', () => {
    expect(hostPeerEvidence(s, 'nowhere')).toEqual([]);
    expect(hostPeerEvidence(s, 'h3', 1)).toHaveLength(1);
  });
});
