import { afterEach, describe, expect, it, vi } from 'vitest';
import { fetchHosts, fetchStragglers } from './endpoints';

// The Stragglers page passes a whole fan-out operation where an OperationKey is asked for; its
// nested objects were sent as `[object Object]` query parameters (issue 24).
const op = {
  parentService: 'frontend',
  parentOperation: 'GET /search',
  leafService: 'kv',
  leafOperation: 'get',
  calls: 1200,
  leafLatencyMs: { p50: 1, p95: 2, p99: 3, p999: 4 },
  amplification: { thresholdMs: 3, verdict: 'independent' },
};

describe('operation parameters', () => {
  const urls: string[] = [];
  vi.stubGlobal('fetch', (url: string) => {
    urls.push(url);
    return Promise.resolve(new Response('{}', { status: 500 }));
  });
  afterEach(() => {
    urls.length = 0;
  });
  const range = { fromMs: 1000, toMs: 61_000 };
  const signal = new AbortController().signal;

  it('sends only the operation key to /hosts and /stragglers', async () => {
    await expect(fetchHosts(range, op, 60, signal)).rejects.toThrow();
    await expect(fetchStragglers(range, op, 'host', signal)).rejects.toThrow();
    expect(urls).toHaveLength(2);
    for (const url of urls) {
      expect(url).not.toContain('object');
      const params = new URLSearchParams(url.slice(url.indexOf('?') + 1));
      expect(params.get('leafService')).toBe('kv');
      expect(params.get('leafOperation')).toBe('get');
      expect([...params.keys()].sort()).toEqual(
        url.startsWith('/api/v1/hosts')
          ? ['from', 'leafOperation', 'leafService', 'to', 'windowSeconds']
          : ['by', 'from', 'leafOperation', 'leafService', 'to'],
      );
    }
  });
});
