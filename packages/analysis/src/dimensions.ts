import { ABSENT_ATTRIBUTE, attributeKey, type Dimension } from './conventions';
import type { AttributeColumn, LeafCalls } from './types';
import { ownEntry } from './own-keys';

/**
 * The per-call column of a straggler dimension as a dictionary: `values[index[i]]` is call i's
 * value. `host`, `sharing_mode` and `background` are LeafCalls' own columns; `attr:KEY` reads
 * `calls.attributes[KEY]`, and a key that was not loaded reads as ABSENT_ATTRIBUTE for every
 * call. O(1) (O(calls) for a missing attribute).
 */
export function dimensionColumn(calls: LeafCalls, dimension: Dimension): AttributeColumn {
  if (dimension === 'host') return { values: calls.hosts, index: calls.host };
  if (dimension === 'sharing_mode') return { values: calls.modes, index: calls.mode };
  if (dimension === 'background') return { values: calls.backgrounds, index: calls.background };
  const key = attributeKey(dimension) ?? '';
  const col = ownEntry(calls.attributes, key);
  if (col) return col;
  return { values: [ABSENT_ATTRIBUTE], index: new Uint32Array(calls.durationMs.length) };
}

/** Calls per dictionary value. O(calls). */
export function countByValue(col: AttributeColumn): Uint32Array {
  const counts = new Uint32Array(col.values.length);
  for (let i = 0; i < col.index.length; i++) {
    const v = col.index[i] as number;
    counts[v] = (counts[v] as number) + 1;
  }
  return counts;
}
