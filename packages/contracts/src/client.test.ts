import { describe, expect, it } from 'vitest';
import { Value } from 'typebox/value';
import {
  API_PATHS,
  ApiCallError,
  ENDPOINTS,
  apiClient,
  endpointUrl,
  type FetchLike,
} from './index';

describe('the typed client', () => {
  it('fills path parameters, encoded, and leaves out undefined query values', () => {
    expect(endpointUrl('trace', { params: { traceId: 'a/b' }, query: { fields: 'summary' } })).toBe(
      '/api/v1/traces/a%2Fb?fields=summary',
    );
    expect(
      endpointUrl('hosts', {
        query: {
          from: 1,
          to: 2,
          leafService: 'kv',
          leafOperation: 'get',
          windowSeconds: undefined,
        },
      }),
    ).toBe('/api/v1/hosts?from=1&to=2&leafService=kv&leafOperation=get');
    expect(endpointUrl('stats', {})).toBe('/api/v1/stats');
  });

  it('names a missing path parameter instead of asking for /undefined', () => {
    const req = { params: {} } as unknown as { params: { traceId: string } };
    expect(() => endpointUrl('trace', req)).toThrow(/traceId missing/);
  });

  it('sends the method and JSON body, and rejects with the server message', async () => {
    const seen: { url: string; method: string; body?: string | undefined }[] = [];
    const fetch: FetchLike = (url, init) => {
      seen.push({ url, method: init.method, body: init.body });
      const bad = url.endsWith('/whatif');
      return Promise.resolve({
        ok: !bad,
        status: bad ? 400 : 200,
        statusText: bad ? 'Bad Request' : 'OK',
        text: () =>
          Promise.resolve(
            bad
              ? '{"error":"body/policy: required","statusCode":400}'
              : '{"required":false,"authenticated":true}',
          ),
      });
    };
    const api = apiClient(fetch, 'http://127.0.0.1:1/');
    await expect(api.call('session', {})).resolves.toEqual({
      required: false,
      authenticated: true,
    });
    const body = { leafService: 'kv', leafOperation: 'get', policy: { kind: 'probation' } };
    const err = await api.call('whatif', { body } as never).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiCallError);
    expect((err as ApiCallError).status).toBe(400);
    expect((err as ApiCallError).message).toBe('body/policy: required');
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      'GET http://127.0.0.1:1/api/v1/session',
      'POST http://127.0.0.1:1/api/v1/whatif',
    ]);
    expect(seen[1]?.body).toBe(JSON.stringify(body));
  });

  it('keeps every endpoint beside its route and paths beside their methods', () => {
    for (const [name, e] of Object.entries(ENDPOINTS)) {
      expect(API_PATHS[name as keyof typeof API_PATHS]).toEqual({ method: e.method, path: e.path });
      if ('query' in e) expect((e.route as { querystring?: unknown }).querystring).toBe(e.query);
      if ('body' in e) expect((e.route as { body?: unknown }).body).toBe(e.body);
    }
    expect(Value.Check(ENDPOINTS.health.response, { status: 'ok' })).toBe(true);
  });
});
