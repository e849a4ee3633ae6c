import { describe, expect, it } from 'vitest';
import type { CapacityServiceView, CapacityView } from '../api/capacity';
import { firstToSaturate } from './verdict';

const service = (over: Partial<CapacityServiceView> = {}): CapacityServiceView => ({
  service: 'db',
  model: 'mgk',
  k: 1,
  instances: 8,
  instancesAfter: 8,
  utilisation: 0.02,
  utilisationAfter: 0.04,
  throughputPerS: 3,
  inFlight: 0.1,
  workMs: 5,
  waitMs: 0,
  fitError: 0.05,
  extrapolated: false,
  saturated: false,
  loadOverObserved: 1,
  ...over,
});

const answer = (s: CapacityServiceView): CapacityView => ({
  requests: 5000,
  notes: [],
  capacity: {
    services: [s],
    saturatesFirst: s.service,
    saturated: s.saturated ? [s.service] : [],
    extrapolated: false,
    request: { baseline: { p50: 1, p90: 2, p99: 3, p999: 4 } },
  },
});

const cpu = { processes: 1, utilisation: 0.4, utilisationAfter: 0.8, cpuMsPerCall: 5 };

describe('firstToSaturate', () => {
  it("speaks of the span model's servers without runtime metrics", () => {
    expect(firstToSaturate(answer(service()))).toBe(
      'db saturates first: its busiest window goes from 2% to 4% busy on 8 instances of 1 server; about 25× more traffic would saturate it.',
    );
  });

  it('speaks of the CPU when the runtime metrics read it busier than the spans', () => {
    const s = service({ cpu: { ...cpu, spanUtilisation: 0.02 } });
    expect(firstToSaturate(answer(s))).toBe(
      'db saturates first: the CPU of its busiest process goes from 40% to 80% of what it gets (runtime metrics, 1 process; the spans alone read 4%); about 1.25× more traffic would saturate it.',
    );
    const sat = service({
      saturated: true,
      cpu: { ...cpu, utilisationAfter: 1.04, spanUtilisation: 0.02 },
    });
    expect(firstToSaturate(answer(sat))).toMatch(/needs|would need 104% of the CPU it gets/);
  });
});
