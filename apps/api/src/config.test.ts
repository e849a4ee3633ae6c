import { describe, expect, it } from 'vitest';
import { loadSettings } from './config';

describe('settings', () => {
  it('has the documented defaults', () => {
    const s = loadSettings({});
    expect(s).toMatchObject({
      dataDir: './data',
      host: '127.0.0.1',
      port: 8080,
      otlpHttpPort: 4318,
      otlpGrpcPort: 4317,
      otlpMaxBytes: 64 * 1024 * 1024,
      clickhouseUrl: undefined,
    });
  });

  it('reads the environment, and flags win over it', () => {
    const env = {
      TAILSCOPE_PORT: '9000',
      TAILSCOPE_DATA_DIR: '/tmp/x',
      CLICKHOUSE_URL: 'http://h:8123',
    };
    expect(loadSettings(env)).toMatchObject({
      port: 9000,
      dataDir: '/tmp/x',
      clickhouseUrl: 'http://h:8123',
    });
    expect(loadSettings(env, { port: '9100' }).port).toBe(9100);
  });

  it('names the bad setting', () => {
    expect(() => loadSettings({ TAILSCOPE_OTLP_HTTP_PORT: 'abc' })).toThrow(
      /TAILSCOPE_OTLP_HTTP_PORT/,
    );
    expect(() => loadSettings({ TAILSCOPE_PORT: '70000' })).toThrow(
      /TAILSCOPE_PORT must be an integer between 0 and 65535/,
    );
  });
});
