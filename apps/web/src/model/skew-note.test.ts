import { describe, expect, it } from 'vitest';
import { skewNote } from './skew-note';

describe('skewNote', () => {
  it('is one line with a count, whatever the number of host pairs', () => {
    const pairs = Array.from({ length: 40 }, (_, i) => ({
      clientHost: `fe-${String(i)}`,
      serverHost: `db-${String(i)}`,
      calls: 3,
      maxMs: i,
    }));
    const note = skewNote(pairs) ?? '';
    expect(note).toContain('120 calls between 40 host pairs');
    expect(note).not.toContain('fe-1');
    expect(note).not.toContain('\n');
  });

  it('claims no skew between spans of one host', () => {
    expect(skewNote([{ clientHost: 'h1', serverHost: 'h1', calls: 9, maxMs: 1 }])).toBeNull();
    expect(
      skewNote([
        { clientHost: 'h1', serverHost: 'h1', calls: 9, maxMs: 1 },
        { clientHost: 'h1', serverHost: 'h2', calls: 1, maxMs: 2 },
      ]),
    ).toContain('1 call between 1 host pair');
  });
});
