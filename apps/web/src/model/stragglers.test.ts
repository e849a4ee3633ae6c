import { describe, expect, it } from 'vitest';
import {
  attributeDimension,
  forestEmptyText,
  orderRows,
  parseBy,
  ratioWithInterval,
} from './stragglers';
import { sickHostStragglers } from '../test-fixtures';

describe('straggler helpers', () => {
  it('parses by= with defaults, attributes and junk', () => {
    expect(parseBy(null)).toEqual(['host', 'sharing_mode', 'background']);
    expect(parseBy('host,attr:deploy.zone,host,bogus,attr:')).toEqual(['host', 'attr:deploy.zone']);
  });

  it('turns a typed attribute key into a dimension', () => {
    expect(attributeDimension(' deploy.zone ')).toBe('attr:deploy.zone');
    expect(attributeDimension('attr:build.id')).toBe('attr:build.id');
    expect(attributeDimension('  ')).toBeNull();
  });

  it('puts causes first by risk ratio', () => {
    const shuffled = [...sickHostStragglers].reverse();
    expect(orderRows(shuffled).map((r) => r.value)).toEqual([
      'leaf-07',
      'compaction',
      'contended',
      'blue',
      'leaf-03',
    ]);
  });
});

describe('ratioWithInterval', () => {
  it('prints the ratio and its interval, or a dash when there is none', () => {
    const [row] = sickHostStragglers;
    if (!row) throw new Error('fixture');
    expect(ratioWithInterval(row)).toBe('×22.4 [×18.1, ×27.6]');
    expect(
      ratioWithInterval({ ...row, riskRatio: NaN, riskRatioLow: 0, riskRatioHigh: Infinity }),
    ).toBe('–');
    expect(ratioWithInterval({ ...row, riskRatioHigh: Infinity })).toBe('×22.4 [×18.1, ∞]');
  });
});

describe('forestEmptyText', () => {
  it('says "no tail stragglers" only when there are none', () => {
    expect(forestEmptyText(0, ['host']).title).toBe('No tail stragglers in this range');
    const some = forestEmptyText(200, ['host', 'sharing_mode']);
    expect(some.title).toBe('200 tail stragglers, nothing to compare');
    expect(some.detail).toContain('same host, sharing mode');
  });
});
