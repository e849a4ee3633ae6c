import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { loadSettings } from './config';
import { storeOptions } from './server/store-options';

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
      otlpMaxInflightBytes: 256 * 1024 * 1024,
      otlpBodyIdleTimeoutMs: 10_000,
      otlpMaxAttributes: 128,
      otlpMaxEvents: 128,
      otlpMaxLinks: 128,
      otlpMaxValueBytes: 65_536,
      clickhouseUrl: undefined,
    });
  });

  it('reads the ingest limits and refuses nonsense for them', () => {
    const s = loadSettings({
      TAILSCOPE_OTLP_MAX_INFLIGHT_BYTES: '1048576',
      TAILSCOPE_OTLP_MAX_ATTRIBUTES: '16',
    });
    expect(s).toMatchObject({ otlpMaxInflightBytes: 1048576, otlpMaxAttributes: 16 });
    expect(() => loadSettings({ TAILSCOPE_OTLP_MAX_ATTRIBUTES: '0' })).toThrow(
      /TAILSCOPE_OTLP_MAX_ATTRIBUTES must be an integer/,
    );
    expect(() => loadSettings({ TAILSCOPE_OTLP_BODY_IDLE_TIMEOUT_MS: 'soon' })).toThrow(
      /TAILSCOPE_OTLP_BODY_IDLE_TIMEOUT_MS/,
    );
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

  it('reads the analysis threads and queue, leaving one core to ingest by default', () => {
    const s = loadSettings({});
    expect(s.analysisThreads).toBe(Math.max(1, availableParallelism() - 1));
    expect(s.analysisQueue).toBe(16);
    const set = loadSettings({ TAILSCOPE_ANALYSIS_THREADS: '3', TAILSCOPE_ANALYSIS_QUEUE: '0' });
    expect(set).toMatchObject({ analysisThreads: 3, analysisQueue: 0 });
    // Applied: the store (its pool, gate and analysis queries) gets them.
    expect(storeOptions(set).analysis).toEqual({ threads: 3, maxQueue: 0 });
    expect(loadSettings({}, { analysisThreads: '2' }).analysisThreads).toBe(2);
    for (const bad of ['0', '-1', '1.5', 'many', '257'])
      expect(() => loadSettings({ TAILSCOPE_ANALYSIS_THREADS: bad })).toThrow(
        /TAILSCOPE_ANALYSIS_THREADS must be an integer between 1 and 256/,
      );
    expect(() => loadSettings({ TAILSCOPE_ANALYSIS_QUEUE: '10001' })).toThrow(
      /TAILSCOPE_ANALYSIS_QUEUE must be an integer between 0 and 10000/,
    );
  });

  it('names the bad setting', () => {
    expect(() => loadSettings({ TAILSCOPE_OTLP_HTTP_PORT: 'abc' })).toThrow(
      /TAILSCOPE_OTLP_HTTP_PORT/,
    );
    expect(() => loadSettings({ TAILSCOPE_PORT: '70000' })).toThrow(
      /TAILSCOPE_PORT must be an integer between 0 and 65535/,
    );
  });

  it('reads read-only, the table name and retention days, refusing bad ones', () => {
    expect(loadSettings({})).toMatchObject({
      readOnly: false,
      tracesTable: 'otel_traces',
      retentionDays: undefined,
    });
    const s = loadSettings({
      TAILSCOPE_READ_ONLY: '1',
      TAILSCOPE_TRACES_TABLE: 'my_spans',
      TAILSCOPE_RETENTION_DAYS: '7',
      TAILSCOPE_RETENTION_DAYS_TRACES: '0',
    });
    expect(s).toMatchObject({
      readOnly: true,
      tracesTable: 'my_spans',
      retentionDays: 7,
      retentionDaysTraces: 0,
    });
    expect(() => loadSettings({ TAILSCOPE_TRACES_TABLE: 'x; DROP TABLE y' })).toThrow(
      /TAILSCOPE_TRACES_TABLE must be a plain ClickHouse identifier/,
    );
    expect(() => loadSettings({ TAILSCOPE_RETENTION_DAYS: '-1' })).toThrow(
      /TAILSCOPE_RETENTION_DAYS must be an integer/,
    );
  });
});
