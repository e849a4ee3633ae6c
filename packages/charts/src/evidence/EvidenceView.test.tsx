import { describe, expect, it } from 'vitest';
import { EvidenceView } from './EvidenceView';
import { layoutEvidence } from './layout';
import { CPU_SERIES } from '../fixtures';
import { matchGolden } from '../golden';

describe('EvidenceView', () => {
  it('matches its golden SVG for a pod at its CPU limit', () => {
    const g = matchGolden(
      import.meta.url,
      'evidence-cpu-limit',
      <EvidenceView layout={layoutEvidence(CPU_SERIES, 320)} />,
    );
    expect(g.actual).toBe(g.expected);
  });
});
