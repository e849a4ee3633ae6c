import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  createGenerator,
  encodeOtlpJson,
  encodeOtlpProtobuf,
  presetNames,
  presetSpec,
  type GeneratorOptions,
} from './index';

function digest(name: (typeof presetNames)[number], options: GeneratorOptions, json = false) {
  const hash = createHash('sha256');
  const gen = createGenerator(presetSpec(name), options);
  for (const b of gen.batches()) hash.update(json ? encodeOtlpJson(b) : encodeOtlpProtobuf(b));
  return hash.digest('hex');
}

describe('determinism', () => {
  it.each(presetNames)('%s: same seed, same bytes; another seed, other bytes', (name) => {
    const options = { requests: 60, seed: 'alpha' };
    const once = digest(name, options);
    expect(digest(name, options)).toBe(once);
    expect(digest(name, { ...options, seed: 'beta' })).not.toBe(once);
    expect(digest(name, options, true)).toBe(digest(name, options, true));
  });

  it('a generator replays identically, and a numeric seed equals its text', () => {
    const gen = createGenerator(presetSpec('sick-host'), { requests: 300, seed: 42 });
    const a = [...gen.batches()].map((b) => Buffer.from(encodeOtlpProtobuf(b)).toString('hex'));
    const b = [...gen.batches()].map((b) => Buffer.from(encodeOtlpProtobuf(b)).toString('hex'));
    expect(b).toEqual(a);
    expect(digest('sick-host', { requests: 300, seed: '42' })).toBe(
      digest('sick-host', { requests: 300, seed: 42 }),
    );
  });

  it('a start time shifts the times and nothing else', () => {
    const calls = (start: string) =>
      createGenerator(presetSpec('bobtail'), { requests: 50, seed: 5, start }).leafCalls().calls;
    const a = calls('2025-01-01T00:00:00Z');
    const b = calls('2025-06-01T00:00:00Z');
    expect(b.durationMs).toEqual(a.durationMs);
    expect(b.traceIds).toEqual(a.traceIds);
    expect((b.fanoutStartMs[0] ?? 0) - (a.fanoutStartMs[0] ?? 0)).toBeCloseTo(
      Date.parse('2025-06-01T00:00:00Z') - Date.parse('2025-01-01T00:00:00Z'),
      3,
    );
  });

  it('request i does not depend on how many requests follow it', () => {
    const short = createGenerator(presetSpec('service-tree'), {
      requests: 40,
      seed: 9,
    }).leafCalls();
    const long = createGenerator(presetSpec('service-tree'), {
      requests: 400,
      seed: 9,
    }).leafCalls();
    const n = short.calls.durationMs.length;
    expect(long.calls.durationMs.slice(0, n)).toEqual(short.calls.durationMs);
    expect(long.calls.host.slice(0, n)).toEqual(short.calls.host);
    expect(long.calls.traceIds.slice(0, 40)).toEqual(short.calls.traceIds);
  });

  it('never reads the clock unless asked for "now"', () => {
    const now = () => 1_234_567_890_000;
    const gen = createGenerator(presetSpec('bobtail'), { requests: 1, start: 'now', now });
    expect(gen.truth.start.epochMs).toBe(now());
    expect(() => createGenerator(presetSpec('bobtail'), { requests: 1, start: 'now' })).toThrow(
      /clock/,
    );
  });
});
