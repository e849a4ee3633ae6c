import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { status } from '@grpc/grpc-js';
import fc from 'fast-check';
import protobuf from 'protobufjs/minimal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonToProtobuf } from '../src/ingest/decode-json';
import type { Running } from '../src/server/serve';
import { fanoutSpans, jsonRequest, otlpJson, protobufRequest } from '../src/testing/otlp-fixtures';
import {
  JSON_TYPE,
  PROTO,
  T0,
  countSpans,
  grpcExport,
  postOtlp,
  startServer,
  timedSpan,
} from './ingest-support';

/**
 * Property-based fuzzing of the OTLP receivers (issue #15), against the real server and engine:
 * random bytes, mutated real requests, random protobuf trees with every wire type at every
 * field number of the OTLP messages, random JSON and OTLP-shaped JSON with values of any type.
 * Every answer is a 2xx or 4xx within 10 s, the process stays up, and a valid request is still
 * stored afterwards. Fixed seeds and bounded runs keep it well under a minute.
 */

let dir: string;
let running: Running;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tailscope-fuzz-'));
  running = await startServer(dir, { otlpMaxBytes: String(1024 * 1024) });
});

afterAll(async () => {
  await running.close();
  rmSync(dir, { recursive: true, force: true });
});

const ANSWER_LIMIT_MS = 10_000;

async function postAndCheck(body: Buffer | string, headers: Record<string, string>) {
  const started = Date.now();
  const res = await postOtlp(running, body, headers);
  await res.arrayBuffer();
  expect(Date.now() - started).toBeLessThan(ANSWER_LIMIT_MS);
  expect(res.status, `answered ${res.status}`).toBeLessThan(500);
  return res.status;
}

/** A protobuf message: fields with any number 1..17 and any wire type, nested to depth 4. */
type Field = { no: number; wire: 0 | 1 | 2 | 5; value: bigint | Uint8Array | Field[] };
const { tree } = fc.letrec<{ tree: Field[]; field: Field }>((tie) => ({
  tree: fc.array(tie('field'), { maxLength: 6, depthIdentifier: 'msg' }),
  field: fc.oneof(
    { depthSize: 'small', depthIdentifier: 'msg', withCrossShrink: true },
    fc.record({
      no: fc.integer({ min: 1, max: 17 }),
      wire: fc.constantFrom(0 as const, 1 as const, 5 as const),
      value: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
    }),
    fc.record({
      no: fc.integer({ min: 1, max: 17 }),
      wire: fc.constant(2 as const),
      value: fc.uint8Array({ maxLength: 24 }),
    }),
    fc.record({
      no: fc.integer({ min: 1, max: 17 }),
      wire: fc.constant(2 as const),
      value: tie('tree'),
    }),
  ),
}));

function encode(fields: Field[], w = protobuf.Writer.create()): protobuf.Writer {
  for (const f of fields) {
    w.uint32((f.no << 3) | f.wire);
    const v = f.value;
    if (f.wire === 2) {
      if (v instanceof Uint8Array) w.bytes(v);
      else if (Array.isArray(v)) {
        w.fork();
        encode(v, w);
        w.ldelim();
      }
    } else if (typeof v === 'bigint') {
      const lo = Number(v & 0xffffffffn);
      const hi = Number((v >> 32n) & 0xffffffffn);
      if (f.wire === 0) w.uint64({ low: lo, high: hi, unsigned: true });
      else if (f.wire === 1) w.fixed32(lo).fixed32(hi);
      else w.fixed32(lo);
    }
  }
  return w;
}

/** A random tree under the real ResourceSpans > ScopeSpans > Span nesting, so it gets deep. */
const otlpShaped = tree.map((span) =>
  encode([
    { no: 1, wire: 2, value: [{ no: 2, wire: 2, value: [{ no: 2, wire: 2, value: span }] }] },
  ]),
);

const valid = protobufRequest(fanoutSpans(30, 7));

describe('OTLP fuzzing', () => {
  it('protobuf bodies: random bytes, mutated requests, random trees', async () => {
    const seen = new Set<number>();
    const bodies = fc.oneof(
      fc.uint8Array({ maxLength: 512 }).map((b) => Buffer.from(b)),
      fc
        .array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 })
        .map((edits) => {
          const copy = Buffer.from(valid);
          for (const [at, v] of edits) copy[at % copy.length] = v;
          return copy;
        }),
      fc.nat({ max: valid.length }).map((n) => valid.subarray(0, n)),
      otlpShaped.map((w) => Buffer.from(w.finish())),
      tree.map((t) => Buffer.from(encode(t).finish())),
    );
    await fc.assert(
      fc.asyncProperty(bodies, async (body) => {
        seen.add(await postAndCheck(body, PROTO));
      }),
      { numRuns: 250, seed: 1515 },
    );
    expect(seen.has(200)).toBe(true);
    expect(seen.has(400)).toBe(true);
  });

  it('JSON bodies: any JSON, OTLP-shaped JSON with values of any type', async () => {
    const seen = new Set<number>();
    const anyValue = fc.oneof(
      fc.jsonValue(),
      fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map((n) => ({ raw: n.toString() })),
    );
    const span = fc.record(
      {
        traceId: fc.oneof(fc.constant('ab'.repeat(16)), anyValue),
        spanId: fc.oneof(fc.constant('cd'.repeat(8)), anyValue),
        name: anyValue,
        kind: anyValue,
        startTimeUnixNano: anyValue,
        endTimeUnixNano: anyValue,
        attributes: fc.oneof(
          fc.array(
            fc.record({
              key: anyValue,
              value: fc.dictionary(
                fc.constantFrom(
                  'stringValue',
                  'intValue',
                  'doubleValue',
                  'boolValue',
                  'arrayValue',
                  'kvlistValue',
                  'bytesValue',
                ),
                anyValue,
              ),
            }),
          ),
          anyValue,
        ),
        events: anyValue,
        links: anyValue,
        status: anyValue,
      },
      { requiredKeys: [] },
    );
    // Big integers go into the text as bare JSON numbers (the int64 path of issue #15).
    const text = (v: unknown) =>
      JSON.stringify(v).replace(/\{"raw":"(-?\d+)"\}/g, (_m, digits: string) => digits);
    const bodies = fc.oneof(
      fc.jsonValue().map(text),
      fc
        .array(span, { maxLength: 4 })
        .map((spans) =>
          text(JSON.parse(otlpJson([])) as object).replace('"spans":[]', `"spans":${text(spans)}`),
        ),
      fc.string({ maxLength: 200 }),
    );
    await fc.assert(
      fc.asyncProperty(bodies, async (body) => {
        seen.add(await postAndCheck(body, JSON_TYPE));
      }),
      { numRuns: 250, seed: 1516 },
    );
    expect(seen.has(200)).toBe(true);
    expect(seen.has(400)).toBe(true);
  });

  it('gRPC messages: random trees under the OTLP nesting', async () => {
    await fc.assert(
      fc.asyncProperty(otlpShaped, async (w) => {
        const started = Date.now();
        const r = await grpcExport(running.urls.otlpGrpc, Buffer.from(w.finish()));
        expect(Date.now() - started).toBeLessThan(ANSWER_LIMIT_MS);
        expect([status.OK, status.INVALID_ARGUMENT]).toContain(r.code);
      }),
      { numRuns: 60, seed: 1517 },
    );
  });

  it('leaves the server alive and still storing valid requests', async () => {
    expect((await fetch(`${running.urls.api}/healthz`)).status).toBe(200);
    const traceId = '9a'.repeat(16);
    expect(
      (await postOtlp(running, otlpJson([timedSpan(traceId, 0, T0, T0 + 5n)]), JSON_TYPE)).status,
    ).toBe(200);
    expect((await postOtlp(running, jsonRequest(fanoutSpans(5, 8)), JSON_TYPE)).status).toBe(200);
    expect(
      (
        await postOtlp(
          running,
          jsonToProtobuf(Buffer.from(otlpJson([timedSpan('9b'.repeat(16), 0, T0, T0 + 5n)]))),
        )
      ).status,
    ).toBe(200);
    await running.ingest.flush();
    expect(await countSpans(running, traceId)).toBe(1);
    expect(await countSpans(running, '9b'.repeat(16))).toBe(1);
  });
});
