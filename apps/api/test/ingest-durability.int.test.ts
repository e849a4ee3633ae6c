import { spawn, type ChildProcess, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore, sql } from '../src/store';
import { fanoutSpans, protobufRequest } from '../src/testing/otlp-fixtures';

/**
 * kill -9 during sustained ingest: the real CLI, SIGKILLed while requests are in flight, then
 * restarted on the same data directory. Every span that got a 200 must be stored exactly once.
 */

const BIN = resolve(import.meta.dirname, '../../cli/bin/tailscope.js');
const dir = mkdtempSync(join(tmpdir(), 'tailscope-kill9-'));
const children: ChildProcess[] = [];

afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** Starts `tailscope serve` and reads the bound addresses from its startup lines. */
interface Cli {
  child: ChildProcessByStdio<null, Readable, Readable>;
  otlp: string;
  output: () => string;
}

function startCli(): Promise<Cli> {
  const child = spawn(
    process.execPath,
    [
      BIN,
      'serve',
      '--data-dir',
      dir,
      '--port',
      '0',
      '--otlp-http-port',
      '0',
      '--otlp-grpc-port',
      '0',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TAILSCOPE_LOG_LEVEL: 'warn' } },
  );
  children.push(child);
  return new Promise((resolvePromise, reject) => {
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const otlp = /OTLP\/HTTP\s+(\S+)\/v1\/traces/.exec(out)?.[1];
      if (otlp) {
        resolvePromise({ child, otlp, output: () => out });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.once('exit', (code, signal) => {
      reject(new Error(`tailscope exited (${String(code ?? signal)}): ${out}`));
    });
  });
}

function post(agent: Agent, url: string, body: Buffer): Promise<number> {
  return new Promise((resolvePromise) => {
    const req = request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/x-protobuf' } },
      (res) => {
        res.resume();
        res.on('end', () => {
          resolvePromise(res.statusCode ?? 0);
        });
        res.on('error', () => {
          resolvePromise(0);
        });
      },
    );
    // A connection cut by the kill is simply not acknowledged.
    req.on('error', () => {
      resolvePromise(0);
    });
    req.end(body);
  });
}

// 'close', not 'exit': the replay's last log line comes at shutdown, and 'exit' may fire
// before the child's output has all been read.
const exited = (child: ChildProcess) =>
  new Promise<void>((r) => {
    if (child.stdout?.closed && (child.exitCode !== null || child.signalCode !== null)) r();
    else
      child.once('close', () => {
        r();
      });
  });

describe('kill -9 during sustained ingest', () => {
  it('keeps every acknowledged span, each exactly once', async () => {
    const REQUESTS = 120;
    const requests = Array.from({ length: REQUESTS }, (_, i) => {
      const spans = fanoutSpans(400, 1000 + i);
      return {
        body: protobufRequest(spans),
        keys: spans.map((s) => s.spanContext().traceId + s.spanContext().spanId),
      };
    });

    const first = await startCli();
    const agent = new Agent({ keepAlive: true, maxSockets: 3 });
    const acked = new Set<string>();
    let next = 0;
    let killed = false;
    const url = `${first.otlp}/v1/traces`;
    const worker = async () => {
      while (!killed && next < REQUESTS) {
        const r = requests[next++];
        if (!r) break;
        const status = await post(agent, url, r.body);
        if (status === 200) for (const k of r.keys) acked.add(k);
      }
    };
    const workers = Promise.all([worker(), worker(), worker()]);
    // Kill mid-stream: after a few seconds of sustained ingest (or half the requests), with
    // requests still in flight.
    const t0 = Date.now();
    while (Date.now() - t0 < 3000 && acked.size < 60 * 400) {
      await new Promise((r) => setTimeout(r, 20));
    }
    first.child.kill('SIGKILL');
    killed = true;
    await workers;
    await exited(first.child);
    agent.destroy();
    expect(acked.size).toBeGreaterThan(0);
    expect(next).toBeLessThan(REQUESTS);

    // Restart on the same directory: the receivers open at once and the log is replayed behind
    // them; once it says so, every acknowledged span must be in the store exactly once.
    const second = await startCli();
    const until = Date.now() + 60_000;
    while (!/replayed \d+ spans from the write-ahead log/.test(second.output())) {
      if (Date.now() > until) throw new Error(`replay did not finish: ${second.output()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    second.child.kill('SIGTERM');
    await exited(second.child);

    const store = openStore({ dataDir: dir });
    try {
      const rows = await store.query<{ k: string; n: string }>(
        sql`SELECT concat(TraceId, SpanId) AS k, toString(count()) AS n FROM otel_traces GROUP BY k`,
      );
      const stored = new Map(rows.map((r) => [r.k, Number(r.n)]));
      const missing = [...acked].filter((k) => !stored.has(k));
      const twice = rows.filter((r) => r.n !== '1');
      expect(missing).toEqual([]);
      expect(twice).toEqual([]);
    } finally {
      await store.close();
    }
  }, 90_000);
});
