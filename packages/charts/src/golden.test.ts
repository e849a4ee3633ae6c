import { describe, expect, it } from 'vitest';
import { normalizeSvg } from './golden';

describe('normalizeSvg', () => {
  it('renumbers ids and their references, and nothing else', () => {
    const out = normalizeSvg(
      '<svg><defs><linearGradient id="«r7»-g"></linearGradient></defs><rect fill="url(#«r7»-g)" class="g"></rect><g aria-labelledby="«r7»-g">g</g></svg>',
    );
    expect(out).toContain('id="id0"');
    expect(out).toContain('fill="url(#id0)"');
    expect(out).toContain('aria-labelledby="id0"');
    expect(out).toContain('class="g"');
    expect(out).not.toContain('«r7»');
  });

  it('rounds numbers to one decimal and drops negative zero', () => {
    expect(normalizeSvg('<path d="M10.04,-0.04L3.15,2"></path>')).toBe(
      '<path d="M10,0L3.2,2"></path>\n',
    );
  });
});
