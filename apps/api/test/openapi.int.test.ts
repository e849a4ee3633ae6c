import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Compile } from 'typebox/compile';
import type { TSchema } from 'typebox';
import { buildStoreApi, registeredRoutes, type Api } from '../src/server/app';
import { insertSpans, mixedSpans, openTempStore, T0_NS } from './analysis-support';

/**
 * The OpenAPI document matches the API: for every registered route, its parameters, body and
 * responses are the schemas the route validates and serialises with, and real answers from a
 * seeded store (successes and errors) fit the documented response schema of their status.
 */

type Json = Record<string, unknown>;
interface Operation {
  parameters?: (Json & { name: string; in: string; required?: boolean; schema: Json })[];
  requestBody?: { content: Record<string, { schema: Json }> };
  responses: Record<string, { description?: string; content?: Record<string, { schema: Json }> }>;
}
interface Doc {
  paths: Record<string, Record<string, Operation>>;
}

const FROM_MS = Number(T0_NS / 1_000_000n);
const TO_MS = FROM_MS + 800 * 40;
const range = `from=${FROM_MS}&to=${TO_MS}`;
const op = 'leafService=kv&leafOperation=get';

/**
 * A schema as the document holds it: JSON, with `const: x` spelled `enum: [x]` (how
 * @fastify/swagger writes it; the two are the same constraint).
 */
function asDocumented(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(asDocumented);
  if (typeof s !== 'object' || s === null) return s;
  const out: Json = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'const') out.enum = [v];
    else out[k] = asDocumented(v);
  }
  return out;
}
const json = (s: unknown): unknown => asDocumented(JSON.parse(JSON.stringify(s)));
/** The same, without its description (a parameter's description sits beside its schema). */
const plain = (s: unknown): Json => {
  const { description: _d, ...rest } = json(s) as Json;
  return rest;
};
const openApiPath = (url: string): string => url.replace(/:(\w+)/g, '{$1}');

describe('OpenAPI document', () => {
  let api: Api;
  let close: () => Promise<void>;
  let doc: Doc;
  let traceId: string;
  let spanId: string;

  beforeAll(async () => {
    const t = await openTempStore('openapi');
    close = t.close;
    const spans = mixedSpans(5, 800);
    traceId = spans[0]?.traceId ?? '';
    spanId = spans[0]?.spanId ?? '';
    await insertSpans(t.store, spans);
    api = await buildStoreApi(t.store);
    doc = (await api.inject('/api/v1/openapi.json')).json<Doc>();
  });
  afterAll(async () => {
    await api.close();
    await close();
  });

  const documented = () =>
    registeredRoutes(api).filter(
      (r) => r.method !== 'HEAD' && r.schema !== undefined && r.schema.hide !== true,
    );

  it('documents exactly the registered routes', () => {
    const routes = documented().map((r) => `${r.method} ${openApiPath(r.url)}`);
    const paths = Object.entries(doc.paths).flatMap(([p, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`),
    );
    expect(paths.sort()).toEqual(routes.sort());
    expect(routes).toEqual(
      expect.arrayContaining([
        'GET /api/v1/fanouts',
        'GET /api/v1/stragglers',
        'GET /api/v1/hosts',
        'GET /api/v1/leaves',
        'GET /api/v1/traces/{traceId}',
        'GET /api/v1/traces/{traceId}/spans/{spanId}',
        'GET /api/v1/traces',
        'GET /api/v1/criticalpath',
        'GET /api/v1/stats',
        'POST /api/v1/whatif',
      ]),
    );
  });

  it('documents each route with the schemas it validates and answers with', () => {
    for (const r of documented()) {
      const where = `${r.method} ${r.url}`;
      const o = doc.paths[openApiPath(r.url)]?.[r.method.toLowerCase()];
      expect(o, where).toBeDefined();
      if (!o) continue;
      for (const [part, place] of [
        ['querystring', 'query'],
        ['params', 'path'],
      ] as const) {
        const schema = r.schema?.[part] as
          { properties: Record<string, Json>; required?: string[] } | undefined;
        const params = (o.parameters ?? []).filter((p) => p.in === place);
        expect(params.map((p) => p.name).sort(), `${where} ${part}`).toEqual(
          Object.keys(schema?.properties ?? {}).sort(),
        );
        for (const p of params) {
          const prop = schema?.properties[p.name];
          expect(plain(p.schema), `${where} ${p.name}`).toEqual(plain(prop));
          expect(p.description, `${where} ${p.name}`).toBe(prop?.description);
          expect(p.required ?? false, `${where} ${p.name}`).toBe(
            place === 'path' || (schema?.required ?? []).includes(p.name),
          );
        }
      }
      if (r.schema?.body === undefined) expect(o.requestBody, where).toBeUndefined();
      else
        expect(o.requestBody?.content['application/json']?.schema, where).toEqual(
          json(r.schema.body),
        );
      const responses = (r.schema?.response ?? {}) as Record<string, Json>;
      expect(Object.keys(o.responses).sort(), where).toEqual(Object.keys(responses).sort());
      for (const [status, schema] of Object.entries(responses)) {
        const got = o.responses[status];
        if ('content' in schema) {
          expect(got?.content, `${where} ${status}`).toEqual(schema.content);
          continue;
        }
        expect(Object.keys(got?.content ?? {}), `${where} ${status}`).toEqual(['application/json']);
        expect(got?.content?.['application/json']?.schema, `${where} ${status}`).toEqual(
          json(schema),
        );
      }
    }
  });

  const whatif = (policy: Json, extra: Json = {}) => ({
    method: 'POST' as const,
    url: '/api/v1/whatif',
    payload: {
      leafService: 'kv',
      leafOperation: 'get',
      from: FROM_MS,
      to: TO_MS,
      policy,
      ...extra,
    },
  });

  it('answers what it documents: real responses fit the documented schema of their status', async () => {
    const requests: (string | { method: 'POST'; url: string; payload: Json })[] = [
      '/healthz',
      '/readyz',
      '/api/v1/stats',
      `/api/v1/traces/${traceId}`,
      `/api/v1/traces/${traceId}?fields=summary`,
      `/api/v1/traces/${traceId}?fields=every`,
      `/api/v1/traces/${traceId}/spans/${spanId}`,
      `/api/v1/traces/${traceId}/spans/${'0'.repeat(15)}1`,
      `/api/v1/traces/${traceId}/spans/nothex`,
      `/api/v1/traces/${'0'.repeat(31)}1`,
      '/api/v1/traces/nothex',
      `/api/v1/traces?${range}&order=slowest&limit=3`,
      `/api/v1/traces?${range}&limit=0`,
      `/api/v1/criticalpath?${range}&band=p90`,
      `/api/v1/criticalpath?${range}&band=p50`,
      `/api/v1/fanouts?${range}`,
      `/api/v1/fanouts?${range}&thresholdMs=-1`,
      `/api/v1/stragglers?${range}&${op}`,
      `/api/v1/stragglers?${range}&${op}&by=attr:zone,host`,
      `/api/v1/stragglers?${range}&leafService=kv`,
      `/api/v1/hosts?${range}&${op}&windowSeconds=5`,
      `/api/v1/hosts?${range}&${op}&windowSeconds=0`,
      `/api/v1/leaves?${range}&${op}`,
      `/api/v1/leaves?${range}&${op}&maxFanouts=0`,
      whatif({ kind: 'hedge' }),
      whatif({ kind: 'probation' }),
      whatif({ kind: 'good-enough', fraction: 0.9 }),
      whatif({ kind: 'tied' }),
      whatif({ kind: 'canary' }),
      whatif({ kind: 'hedge' }, { leafOperation: 'none' }),
      whatif({ kind: 'hedge', delayMs: -1 }),
      whatif({ kind: 'load', factor: 1.5 }),
      whatif({ kind: 'hedge' }, { capacity: [{ kind: 'load', factor: 1.2 }] }),
      whatif({ kind: 'load', factor: 0 }),
      '/api/v1/session',
      { method: 'POST' as const, url: '/api/v1/session', payload: { token: 'a'.repeat(32) } },
      { method: 'POST' as const, url: '/api/v1/session', payload: { token: '' } },
    ];
    const seen = new Set<string>();
    for (const req of requests) {
      const res = await api.inject(req);
      const url = typeof req === 'string' ? req : req.url;
      const path = url.split('?')[0] ?? '';
      const route = Object.keys(doc.paths).find((p) =>
        new RegExp(`^${p.replace(/\{\w+\}/g, '[^/]+')}$`).test(path),
      );
      const method = typeof req === 'string' ? 'get' : 'post';
      const documentedAnswer = doc.paths[route ?? '']?.[method]?.responses[String(res.statusCode)];
      const where = `${method} ${url} -> ${res.statusCode} ${res.body.slice(0, 200)}`;
      expect(documentedAnswer, where).toBeDefined();
      const type = String(res.headers['content-type']).split(';')[0] ?? '';
      const content = documentedAnswer?.content?.[type];
      expect(content, where).toBeDefined();
      if (type === 'application/json') {
        const check = Compile(content?.schema as unknown as TSchema);
        expect(
          check.Check(res.json()),
          `${where}: ${JSON.stringify(check.Errors(res.json())[0])}`,
        ).toBe(true);
      }
      seen.add(`${method} ${route ?? path} ${res.statusCode}`);
    }
    // The seeded store answers each kind of status: success, 400 and 404 where documented.
    expect([...seen]).toEqual(
      expect.arrayContaining([
        'get /api/v1/traces/{traceId} 200',
        'get /api/v1/traces/{traceId} 404',
        'get /api/v1/traces/{traceId} 400',
        'get /api/v1/traces/{traceId}/spans/{spanId} 200',
        'get /api/v1/traces/{traceId}/spans/{spanId} 404',
        'get /api/v1/traces/{traceId}/spans/{spanId} 400',
        'get /api/v1/traces 200',
        'get /api/v1/traces 400',
        'get /api/v1/criticalpath 200',
        'get /api/v1/criticalpath 400',
        'get /api/v1/fanouts 200',
        'get /api/v1/stragglers 200',
        'get /api/v1/hosts 200',
        'get /api/v1/leaves 200',
        'post /api/v1/whatif 200',
        'post /api/v1/whatif 404',
        'post /api/v1/whatif 400',
        'get /api/v1/session 200',
        'post /api/v1/session 200',
        'post /api/v1/session 400',
      ]),
    );
  });
});
