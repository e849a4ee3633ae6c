import { describe, expect, it } from 'vitest';
import { singleHostNote } from './host-note';

describe('singleHostNote', () => {
  it('says nothing with two hosts or none', () => {
    expect(singleHostNote(['a', 'b'])).toBeNull();
    expect(singleHostNote([])).toBeNull();
  });

  it('names the missing attributes when the only host is unknown', () => {
    expect(singleHostNote(['unknown'])).toMatch(/no host resource attribute \(host\.name/);
  });

  it('names the one host otherwise', () => {
    expect(singleHostNote(['db-1'])).toMatch(/served by db-1/);
  });
});
