import { describe, expect, it } from 'vitest';
import { episodeCause, type CauseInput, type SpanSplit } from './episode-cause';

const FROM = Date.UTC(2026, 0, 1, 5, 19);
const base: CauseInput = {
  service: 'currencyservice',
  host: 'pod-1',
  fromMs: FROM,
  toMs: FROM + 120_000,
  ratio: 40,
};
const steady: SpanSplit = {
  calls: 100,
  baselineCalls: 300,
  clientMs: 11,
  baselineClientMs: 11,
  serverMs: 10,
  baselineServerMs: 10,
  outsideMs: 1,
  baselineOutsideMs: 1,
};
const cpu = (value: number, baseline: number) => ({
  signal: 'cpu-saturation',
  metric: 'k8s.pod.cpu_limit_utilization',
  value,
  baseline,
  ratio: value / baseline,
});

describe('episodeCause', () => {
  it('names CPU saturation when the server spans grew and the pod ran at its limit', () => {
    const c = episodeCause({
      ...base,
      evidence: [cpu(0.98, 0.12)],
      spans: { ...steady, serverMs: 400, clientMs: 401 },
    });
    expect(c.signal).toBe('cpu-saturation');
    expect(c.text).toBe(
      'calls into currencyservice on pod-1 were 40x slower from 05:19 to 05:21; its pod ran at 98% of its CPU limit (12% before): CPU saturation',
    );
  });

  it('names container restarts from any restart in the episode, none before', () => {
    const c = episodeCause({
      ...base,
      evidence: [
        {
          signal: 'memory-pressure',
          metric: 'k8s.container.restarts',
          value: 0.01,
          baseline: 0,
          ratio: Number.MAX_VALUE,
        },
      ],
      spans: { ...steady, serverMs: 400, clientMs: 401 },
    });
    expect(c.signal).toBe('memory-pressure');
    expect(c.text).toContain(
      'its container restarted 0.60 times a minute (0.00 before): memory pressure or crashes (container restarts)',
    );
  });

  it("names a container's usage over its limit (sent apart) as its container's", () => {
    const c = episodeCause({
      ...base,
      evidence: [{ ...cpu(0.9, 0.1), metric: 'container.cpu.usage over its limit' }],
      spans: { ...steady, serverMs: 400, clientMs: 401 },
    });
    expect(c.text).toContain('its container ran at 90% of its CPU limit (10% before)');
  });

  it('names network or queueing when only the time outside the server spans grew', () => {
    const c = episodeCause({
      ...base,
      evidence: [cpu(0.3, 0.29)],
      spans: { ...steady, clientMs: 211, outsideMs: 201 },
    });
    expect(c.signal).toBe('network-or-queueing');
    expect(c.text).toContain('its CPU was normal and the server spans did not grow (10.0 ms');
    expect(c.text).toMatch(/: network or queueing before the server$/);
  });

  it('prefers network errors over the generic wording when they rose', () => {
    const net = { signal: 'network', value: 50, baseline: 0, ratio: Number.MAX_VALUE };
    const c = episodeCause({ ...base, evidence: [net], spans: { ...steady, outsideMs: 90 } });
    expect(c.signal).toBe('network');
    expect(c.text).toMatch(/network errors$/);
  });

  it('does not blame a CPU rise that stays far from saturation', () => {
    const c = episodeCause({
      ...base,
      evidence: [cpu(0.2, 0.05)],
      spans: { ...steady, serverMs: 90 },
      evidenceNote: undefined,
    });
    expect(c.signal).toBe('server-time');
  });

  it('a resource signal cannot explain time spent outside the server', () => {
    const steal = { signal: 'neighbour-pressure', value: 0.3, baseline: 0.01, ratio: 30 };
    const c = episodeCause({ ...base, evidence: [steal], spans: { ...steady, outsideMs: 80 } });
    expect(c.signal).toBe('network-or-queueing');
  });

  it('picks the strongest fired resource signal, and any signal with no span split', () => {
    const steal = { signal: 'neighbour-pressure', value: 0.3, baseline: 0.01, ratio: 30 };
    const gc = { signal: 'gc-pause', value: 0.1, baseline: 0.02, ratio: 5 };
    expect(episodeCause({ ...base, evidence: [gc, steal] }).signal).toBe('neighbour-pressure');
    const net = { signal: 'network', value: 5, baseline: 0.5, ratio: 10 };
    expect(episodeCause({ ...base, evidence: [net] }).signal).toBe('network');
  });

  it('says why it is unexplained', () => {
    const c = episodeCause({ ...base, ratio: Number.MAX_VALUE, evidenceNote: 'no metrics stored' });
    expect(c).toEqual({
      signal: 'unexplained',
      text: 'calls into currencyservice on pod-1 were much slower from 05:19 to 05:21; the cause is not known: no metrics stored',
    });
  });
});

describe('episodeCause: memory pressure', () => {
  it('names paging when major faults rose with the server spans', () => {
    const paging = { signal: 'memory-pressure', value: 250, baseline: 2, ratio: 125 };
    const c = episodeCause({
      service: 's',
      host: 'h',
      fromMs: 0,
      toMs: 60_000,
      ratio: 5,
      evidence: [paging],
    });
    expect(c).toEqual({
      signal: 'memory-pressure',
      text: 'calls into s on h were 5.0x slower from 00:00 to 00:01; its host had 250 major page faults/s (2.00/s before): memory pressure (paging)',
    });
  });
});

describe('episodeCause: a neighbour on bare metal', () => {
  it("names the host busy with others' work", () => {
    const busy = {
      signal: 'neighbour-pressure',
      metric: 'system.cpu.utilization busy, not process.cpu.utilization',
      value: 0.7,
      baseline: 0.1,
      ratio: 7,
    };
    const c = episodeCause({
      service: 's',
      host: 'h',
      fromMs: 0,
      toMs: 60_000,
      ratio: 3,
      evidence: [busy],
    });
    expect(c.text).toMatch(
      /its host's CPU was 70% busy with other work than its own \(10% before\): neighbour pressure$/,
    );
  });
});
