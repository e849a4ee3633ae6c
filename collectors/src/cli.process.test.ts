import { spawn } from 'node:child_process';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** The collectors' CLI as a user runs it, against a local OTLP/HTTP endpoint that records posts. */
const BIN = fileURLToPath(new URL('../bin/tailscope-collectors.js', import.meta.url));
const posts: { url: string; headers: IncomingHttpHeaders; bytes: number }[] = [];
const server = createServer((req, res) => {
  let bytes = 0;
  req.on('data', (c: Buffer) => (bytes += c.length));
  req.on('end', () => {
    posts.push({ url: req.url ?? '', headers: req.headers, bytes });
    res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
  });
});
let otlp = '';

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  otlp = `http://127.0.0.1:${String(typeof addr === 'object' && addr ? addr.port : 0)}`;
});
afterAll(() => {
  server.close();
});

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('exit', (code) => {
      resolve({ code, stdout, stderr });
    });
  });
}

describe('tailscope-collectors', () => {
  it('probe prints a verdict and sends it as an OTLP span', async () => {
    posts.length = 0;
    const r = await run(['probe', '--samples', '200', '--otlp', otlp, '--host-name', 'web-3']);
    expect(r.code).toBe(0);
    const verdict = JSON.parse(r.stdout) as { host: string; mode: string; samples: number };
    expect(verdict).toMatchObject({ host: 'web-3', samples: 200 });
    expect(['dedicated', 'shared', 'contended']).toContain(verdict.mode);
    expect(posts.map((p) => p.url)).toEqual(['/v1/traces']);
    expect(posts[0]?.headers['content-type']).toBe('application/x-protobuf');
    expect(posts[0]?.bytes).toBeGreaterThan(0);
  });

  it('wrap reports the command and exits with its exit code', async () => {
    posts.length = 0;
    const r = await run([
      'wrap',
      '--activity',
      'backup',
      '--otlp',
      otlp,
      '--',
      process.execPath,
      '-e',
      'process.exit(4)',
    ]);
    expect(r.code).toBe(4);
    expect(posts).toHaveLength(1);
  });

  it('names what is wrong', async () => {
    const r = await run(['probe', '--samples', 'many']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--samples must be a positive integer');
    const w = await run(['wrap', '--', 'true']);
    expect(w.code).toBe(2);
    expect(w.stderr).toContain('--activity');
    expect((await run(['nope'])).stderr).toContain('unknown command "nope"');
  });
});
