import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGenerator, parseRetryAfter, postOtlp, presetSpec, writeOtlpFiles } from './index';
import { decodeJson, decodeProtobuf } from './otlp-reference';

interface Received {
  contentType: string | undefined;
  encoding: string | undefined;
  body: Buffer;
}

/** A local OTLP receiver that answers with the scripted statuses, then 200. */
function receiver(script: { status: number; retryAfter?: string }[]) {
  const received: Received[] = [];
  let calls = 0;
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const step = script[calls++];
      if (step) {
        if (step.retryAfter !== undefined) res.setHeader('retry-after', step.retryAfter);
        res.writeHead(step.status).end('busy');
        return;
      }
      received.push({
        contentType: req.headers['content-type'],
        encoding: req.headers['content-encoding'],
        body: Buffer.concat(chunks),
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return {
    received,
    attempts: () => calls,
    start: () =>
      new Promise<string>((resolve) =>
        server.listen(0, '127.0.0.1', () => {
          resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`);
        }),
      ),
    stop: () =>
      new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      ),
  };
}

const gen = createGenerator(presetSpec('sick-host'), { requests: 300, seed: 1 });

describe('postOtlp', () => {
  const sleeps: number[] = [];
  const sleep = (ms: number) => {
    sleeps.push(ms);
    return Promise.resolve();
  };

  it('posts every batch, retrying a 429 after its Retry-After and a 503 with backoff', async () => {
    const r = receiver([{ status: 429, retryAfter: '2' }, { status: 503 }]);
    const url = await r.start();
    try {
      const result = await postOtlp(gen, url, { sleep, concurrency: 1 });
      expect(result.retries).toBe(2);
      expect(r.attempts()).toBe(result.batches + 2);
      expect(sleeps[0]).toBe(2000);
      // Second attempt of the same batch: half to all of 200 ms * 2.
      expect(sleeps[1]).toBeGreaterThanOrEqual(200);
      expect(sleeps[1]).toBeLessThanOrEqual(400);
      const spans = r.received.flatMap((x) => decodeProtobuf(x.body));
      expect(spans).toHaveLength(gen.expectedSpans);
      expect(result.spans).toBe(gen.expectedSpans);
      expect(r.received[0]?.contentType).toBe('application/x-protobuf');
    } finally {
      await r.stop();
    }
  });

  it('sends gzip JSON when asked', async () => {
    const r = receiver([]);
    const url = await r.start();
    try {
      await postOtlp(gen, url, { format: 'json', gzip: true, concurrency: 3 });
      expect(r.received[0]?.encoding).toBe('gzip');
      expect(r.received[0]?.contentType).toBe('application/json');
      const spans = r.received.flatMap((x) => decodeJson(gunzipSync(x.body).toString()));
      expect(spans).toHaveLength(gen.expectedSpans);
    } finally {
      await r.stop();
    }
  });

  it('gives up at once on a 400, naming the status', async () => {
    const r = receiver([{ status: 400 }]);
    const url = await r.start();
    try {
      await expect(postOtlp(gen, url, { sleep, concurrency: 1 })).rejects.toThrow(/HTTP 400: busy/);
      expect(r.attempts()).toBe(1);
    } finally {
      await r.stop();
    }
  });

  it('gives up after maxAttempts when nothing listens', async () => {
    const r = receiver([]);
    const url = await r.start();
    await r.stop();
    await expect(postOtlp(gen, url, { sleep, maxAttempts: 3 })).rejects.toThrow(/after 3 attempts/);
  });

  it('refuses a URL that is not http', async () => {
    await expect(postOtlp(gen, 'ftp://x/v1/traces')).rejects.toThrow(/--otlp must be an http/);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(parseRetryAfter('3', 60_000)).toBe(3000);
    expect(
      parseRetryAfter('Wed, 01 Jan 2025 00:00:05 GMT', 60_000, Date.parse('2025-01-01T00:00:00Z')),
    ).toBe(5000);
    expect(parseRetryAfter('999', 60_000)).toBe(60_000);
    expect(parseRetryAfter('soon', 60_000)).toBeNull();
  });
});

describe('writeOtlpFiles', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tracegen-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes numbered batch files and truth.json, and will not mix two runs', async () => {
    const out = join(dir, 'run');
    const result = await writeOtlpFiles(gen, out);
    const names = (await readdir(out)).sort();
    expect(names).toContain('truth.json');
    expect(names.filter((n) => n.endsWith('.pb'))).toHaveLength(result.batches);
    expect(names[0]).toBe('batch-000001.pb');
    const spans = (await Promise.all(result.files.map((f) => readFile(f)))).flatMap((b) =>
      decodeProtobuf(b),
    );
    expect(spans).toHaveLength(gen.expectedSpans);
    const truth = JSON.parse(await readFile(join(out, 'truth.json'), 'utf8')) as {
      causes: unknown;
      leafLatency: unknown;
    };
    expect(truth.causes).toEqual(gen.truth.causes);
    expect(truth.leafLatency).toEqual({ spec: gen.truth.leafLatency.spec, analytic: true });
    await expect(writeOtlpFiles(gen, out)).rejects.toThrow(/already holds batch files/);
  });
});

describe('postOtlp against a receiver that checks the path', () => {
  /** Answers 404 with a protobuf google.rpc.Status (code 5, message) off /v1/traces, as ours does. */
  function strictReceiver() {
    const paths: string[] = [];
    const server: Server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        paths.push(req.url ?? '');
        if (req.url === '/v1/traces') {
          res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
          return;
        }
        const message = Buffer.from(
          `no OTLP endpoint at ${req.url ?? ''}: traces go to POST /v1/traces`,
        );
        const status = Buffer.concat([Buffer.from([0x08, 5, 0x12, message.length]), message]);
        res.writeHead(404, { 'content-type': 'application/x-protobuf' }).end(status);
      });
    });
    return {
      paths,
      start: () =>
        new Promise<string>((resolve) =>
          server.listen(0, '127.0.0.1', () => {
            resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
          }),
        ),
      stop: () =>
        new Promise<void>((resolve) =>
          server.close(() => {
            resolve();
          }),
        ),
    };
  }
  const small = createGenerator(presetSpec('sick-host'), { requests: 20, seed: 1 });

  it('takes a base URL as SDKs do, adding /v1/traces', async () => {
    const r = strictReceiver();
    const base = await r.start();
    try {
      await postOtlp(small, base, { concurrency: 1 });
      await postOtlp(small, `${base}/`, { concurrency: 1 });
      expect(r.paths.length).toBeGreaterThan(0);
      expect(new Set(r.paths)).toEqual(new Set(['/v1/traces']));
    } finally {
      await r.stop();
    }
  });

  it('prints a protobuf error answer as its message, not as bytes', async () => {
    const r = strictReceiver();
    const base = await r.start();
    try {
      await expect(postOtlp(small, `${base}/otlp`, { concurrency: 1 })).rejects.toThrow(
        'HTTP 404: no OTLP endpoint at /otlp: traces go to POST /v1/traces',
      );
    } finally {
      await r.stop();
    }
  });
});
