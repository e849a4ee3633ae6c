import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { toSpanSummary } from './span-json';

const KNOWN = ['Server', 'Client', 'SPAN_KIND_INTERNAL', 'Producer'];
const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];

describe('span kinds as stored text', () => {
  // A Collector's table (read-only mode) stores SpanKind as whatever text it was given: a kind
  // named like an Object.prototype member is unknown, not a function (issue 25).
  test.prop([fc.oneof(fc.constantFrom(...PROTOTYPE_NAMES, ...KNOWN), fc.string())])(
    'map to a known kind or unspecified',
    (kind) => {
      const s = toSpanSummary({
        SpanId: 'a',
        ParentSpanId: '',
        SpanName: kind,
        SpanKind: kind,
        ServiceName: kind,
        StartNs: '1',
        Duration: '1',
        StatusCode: 'Unset',
        StatusMessage: '',
        ResourceAttributes: {},
        SpanAttributes: {},
      });
      expect(['unspecified', 'internal', 'server', 'client', 'producer', 'consumer']).toContain(
        s.kind,
      );
      if (PROTOTYPE_NAMES.includes(kind)) expect(s.kind).toBe('unspecified');
    },
  );
});
