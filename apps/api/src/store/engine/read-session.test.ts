import { describe, expect, it } from 'vitest';
import { paramText, readSessionFromEnv } from './read-session';

describe('paramText', () => {
  it('escapes a string by the escaped (TSV) rules and leaves quotes alone', () => {
    expect(paramText("a'b\\c\td\ne\rf\0g")).toBe("a'b\\\\c\\td\\ne\\rf\\0g");
  });

  it('writes numbers, bigints, booleans and null as the engine parses them', () => {
    expect([paramText(-42), paramText(1.25), paramText(2n ** 63n), paramText(true)]).toEqual([
      '-42',
      '1.25',
      '9223372036854775808',
      'true',
    ]);
    expect(paramText(null)).toBe('\\N');
  });

  it('writes an array as a literal with quoted, escaped strings', () => {
    expect(paramText(['a', "b'c", 'd\\e', 'f\tg'])).toBe("['a','b\\'c','d\\\\e','f\\tg']");
    expect(paramText([1, 2])).toBe('[1,2]');
  });

  it('refuses what it cannot write exactly', () => {
    expect(() => paramText(Number.NaN)).toThrow(/non-finite/);
    expect(() => paramText(2 ** 60)).toThrow(/bigint/);
    expect(() => paramText({ a: 1 })).toThrow(/object/);
  });
});

describe('readSessionFromEnv', () => {
  it('is on unless turned off with 0', () => {
    expect(readSessionFromEnv({})).toBe(true);
    expect(readSessionFromEnv({ TAILSCOPE_READ_SESSION: '' })).toBe(true);
    expect(readSessionFromEnv({ TAILSCOPE_READ_SESSION: '1' })).toBe(true);
    expect(readSessionFromEnv({ TAILSCOPE_READ_SESSION: '0' })).toBe(false);
  });

  it('names the variable and the value it refuses', () => {
    expect(() => readSessionFromEnv({ TAILSCOPE_READ_SESSION: 'yes' })).toThrow(
      'TAILSCOPE_READ_SESSION must be 0 or 1, got "yes"',
    );
  });
});
