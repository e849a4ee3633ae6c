/**
 * The real `tailscope serve` as a child process on a data directory, for benchmarks that measure
 * the server's own CPU (/proc) apart from the load they send.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';

const repo = resolve(import.meta.dirname, '../..');

export interface Server {
  child: ChildProcess;
  api: string;
  otlp: string;
}

/** Starts the CLI and reads the bound addresses from its startup lines. */
export function startServer(dataDir: string): Promise<Server> {
  const child = spawn(
    process.execPath,
    [
      join(repo, 'apps/cli/bin/tailscope.js'),
      'serve',
      '--data-dir',
      dataDir,
      '--port',
      '0',
      '--otlp-http-port',
      '0',
      '--otlp-grpc-port',
      '0',
    ],
    { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, TAILSCOPE_LOG_LEVEL: 'warn' } },
  );
  return new Promise((resolvePromise, reject) => {
    let out = '';
    let api = '';
    const timer = setTimeout(() => {
      reject(new Error(`server did not start: ${out}`));
    }, 60_000);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      api ||= /API and UI (\S+)/.exec(out)?.[1] ?? '';
      const otlp = /OTLP\/HTTP\s+(\S+)\/v1\/traces/.exec(out)?.[1];
      if (api && otlp) {
        clearTimeout(timer);
        resolvePromise({ child, api, otlp });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${String(code)}: ${out}`));
    });
  });
}
