import { describe, expect, it } from 'vitest';
import { clusterOptionsFromFlags, DemoFlagError, statusLine, type DemoFlags } from './demo-flags';

const FLAGS: DemoFlags = {
  dataDir: './data',
  host: '127.0.0.1',
  port: '8080',
  otlpHttpPort: '4318',
  otlpGrpcPort: '4317',
  otlpMaxBytes: '1024',
  policy: 'hedge',
  rate: '25',
  width: '8',
  leafProcesses: '5',
  hostsPerProcess: '8',
  hogs: '1',
  contendedNice: '5',
  probe: true,
  hedgeDelayMs: '10',
  probationWindowS: '5',
  probationFactor: '3',
  probationMinMs: '10',
  probationHoldS: '5',
  probationShadow: '0.2',
  controlFraction: '0',
  slowFrom: '30',
  slowFor: '30',
  slowMs: '40',
  compactionEveryMs: '5000',
  statusEveryS: '5',
  warmupMaxS: '60',
};

describe('clusterOptionsFromFlags', () => {
  it('takes --hedge-cancel close, and names the flag when the value is neither', () => {
    expect(clusterOptionsFromFlags({ ...FLAGS, hedgeCancel: 'close' }, 'u').hedge?.cancel).toBe(
      'close',
    );
    expect(() => clusterOptionsFromFlags({ ...FLAGS, hedgeCancel: 'drop' }, 'u')).toThrow(
      "--hedge-cancel must be discard or close, got 'drop'",
    );
  });

  it('turns flags into cluster options, seconds into ms', () => {
    const o = clusterOptionsFromFlags(
      { ...FLAGS, hedgePercentile: '95', slowHost: 'host-07' },
      'http://x:4318/v1/traces',
    );
    expect(o).toMatchObject({
      policy: 'hedge',
      width: 8,
      hedge: { delayMs: 10, percentile: 95, cancel: 'discard' },
      probation: { windowMs: 5000, holdMs: 5000, shadowFraction: 0.2 },
      slow: { host: 'host-07', fromS: 30, forS: 30, delayMs: 40 },
      controlFraction: 0,
    });
    expect(clusterOptionsFromFlags({ ...FLAGS, controlFraction: '0.5' }, 'u').controlFraction).toBe(
      0.5,
    );
  });

  it('names the bad flag', () => {
    const bad = (f: Partial<DemoFlags>) => () => clusterOptionsFromFlags({ ...FLAGS, ...f }, 'u');
    expect(bad({ width: '21' })).toThrow(DemoFlagError);
    expect(bad({ width: '21' })).toThrow(/--width must be an integer between 2 and 20, got 21/);
    expect(bad({ width: 'eight' })).toThrow(/--width/);
    expect(bad({ probationShadow: '1.5' })).toThrow(/--probation-shadow/);
    expect(bad({ controlFraction: '-0.1' })).toThrow(
      "--control-fraction must be a number between 0 and 1, got '-0.1'",
    );
    expect(bad({ hostsPerProcess: '4', width: '12' })).toThrow(/--width/);
    expect(bad({ slowHost: 'host-99' })).toThrow(/--slow-host .*host-01 to host-40.*host-99/);
  });
});

describe('statusLine', () => {
  it('shows the load, the policy counters and the ingest rate', () => {
    const load = {
      sent: 100,
      ok: 99,
      failed: 1,
      dropped: 0,
      inFlight: 0,
      p50Ms: 12.34,
      p99Ms: NaN,
      maxMs: 50,
      answers: 50,
    };
    const stats = {
      fanouts: 99,
      fanoutErrors: 1,
      calls: 800,
      hedgesSent: 7,
      hedgesWon: 3,
      shadowsSent: 0,
      excluded: [],
      exclusions: 0,
      hedgeDelayMs: 10,
      controlFanouts: 0,
    };
    expect(statusLine(20.4, 5, load, stats, 123.4)).toBe(
      'demo   20s  10.0 fan-outs/s  p50 12.3 ms  p99 -  max 50.0 ms  failed 1  hedges 7 (won 3, delay 10 ms)  ingest 123 spans/s',
    );
    expect(statusLine(20.4, 5, load, { ...stats, controlFanouts: 48 }, null)).toContain(
      'delay 10 ms)  control 48 of 99',
    );
  });
});
