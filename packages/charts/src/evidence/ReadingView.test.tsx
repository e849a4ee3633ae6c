import { describe, expect, it } from 'vitest';
import { ReadingView } from './ReadingView';
import { layoutReading } from './reading';
import { STEAL_READING } from '../fixtures';
import { matchGolden } from '../golden';

describe('ReadingView', () => {
  it('matches its golden SVG for a host judged contended from its CPU steal', () => {
    const g = matchGolden(
      import.meta.url,
      'reading-steal-contended',
      <ReadingView layout={layoutReading(STEAL_READING, 320)} />,
    );
    expect(g.actual).toBe(g.expected);
  });
});
