import { describe, expect, it } from 'vitest';
import { ident, join, param, raw, sql } from './template';

describe('sql tagged template', () => {
  it('binds every value as a typed parameter, never as SQL text', () => {
    const evil = "x' OR 1=1 --";
    const q = sql`SELECT * FROM t WHERE a = ${evil} AND b > ${3} AND c < ${2.5} AND d IN ${['u', 'v']}`;
    expect(q.text).toBe(
      'SELECT * FROM t WHERE a = {p0:String} AND b > {p1:Int64} AND c < {p2:Float64} AND d IN {p3:Array(String)}',
    );
    expect(q.params).toEqual({ p0: evil, p1: 3, p2: 2.5, p3: ['u', 'v'] });
    expect(q.text).not.toContain(evil);
  });

  it('renumbers the parameters of nested fragments', () => {
    const where = join([sql`a = ${'x'}`, sql`b = ${param(7, 'UInt8')}`], ' AND ');
    const q = sql`SELECT ${ident('col')} FROM t WHERE ${where} AND c = ${'y'}${raw(' LIMIT 1')}`;
    expect(q.text).toBe(
      'SELECT {p0:Identifier} FROM t WHERE a = {p1:String} AND b = {p2:UInt8} AND c = {p3:String} LIMIT 1',
    );
    expect(q.params).toEqual({ p0: 'col', p1: 'x', p2: 7, p3: 'y' });
  });

  it('never renames a parameter twice when fragments nest', () => {
    const inner = sql`x = ${'a'} AND y = ${'b'}`;
    const q = sql`${'first'} ${inner}`;
    expect(q.text).toBe('{p0:String} x = {p1:String} AND y = {p2:String}');
    expect(q.params).toEqual({ p0: 'first', p1: 'a', p2: 'b' });
  });

  it('joins nothing into an empty fragment', () => {
    expect(join([], ' AND ')).toEqual({ kind: 'sql', text: '', params: {} });
  });
});
