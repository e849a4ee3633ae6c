import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGenerate, type GenerateFlags } from './generate';

const run = promisify(execFile);
const bin = fileURLToPath(new URL('../bin/tailscope.js', import.meta.url));

/** Runs the real `tailscope` CLI in its own process. */
async function tailscope(args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], { timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'generate-cli-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('tailscope generate', () => {
  it('--help lists every scenario on a line of its own', async () => {
    const { code, stdout } = await tailscope(['generate', '--help']);
    expect(code).toBe(0);
    for (const name of [
      'paper-fanout',
      'service-tree',
      'bobtail',
      'sick-host',
      'background-compaction',
      'bigtable-multiget',
      'microservices',
    ])
      expect(stdout).toMatch(new RegExp(`^  ${name} +\\S`, 'm'));
  });

  it('writes batch files and truth.json with --out', async () => {
    const out = join(dir, 'files');
    const { code, stdout } = await tailscope([
      'generate',
      '--scenario',
      'sick-host',
      '--requests',
      '200',
      '--seed',
      '3',
      '--out',
      out,
      '--format',
      'json',
    ]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/generated 3400 spans \(200 requests/);
    expect(stdout.includes('\u001b[')).toBe(false); // no progress bar when stdout is not a terminal
    const files = (await readdir(out)).filter((f) => f.endsWith('.json') && f !== 'truth.json');
    let spans = 0;
    for (const f of files) {
      const body = JSON.parse(await readFile(join(out, f), 'utf8')) as {
        resourceSpans: { scopeSpans: { spans: unknown[] }[] }[];
      };
      spans += body.resourceSpans.reduce((s, rs) => s + (rs.scopeSpans[0]?.spans.length ?? 0), 0);
    }
    expect(spans).toBe(3400);
    const truth = JSON.parse(await readFile(join(out, 'truth.json'), 'utf8')) as {
      causes: { value: string }[];
    };
    expect(truth.causes.map((c) => c.value)).toEqual(['storage-07']);
  });

  it('posts to an OTLP endpoint and retries after a 429', async () => {
    let attempts = 0;
    let accepted = 0;
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        attempts++;
        if (attempts === 1) res.writeHead(429, { 'retry-after': '0' }).end();
        else {
          accepted++;
          res.writeHead(200).end('{}');
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`;
    try {
      const { code, stdout, stderr } = await tailscope([
        'generate',
        '--scenario',
        'bobtail',
        '--requests',
        '100',
        '--otlp',
        url,
      ]);
      expect(stderr).toBe('');
      expect(code).toBe(0);
      const batches = Number(
        /generated 4100 spans \(100 requests, (\d+) batches/.exec(stdout)?.[1],
      );
      // 41 spans a request; a batch closes at the first whole trace reaching 1000 spans.
      expect(batches).toBe(Math.ceil(100 / Math.ceil(1000 / 41)));
      expect(accepted).toBe(batches);
      expect(attempts).toBe(batches + 1);
    } finally {
      await new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      );
    }
  });

  it('exits 2 naming the bad flag', async () => {
    const { code, stderr } = await tailscope([
      'generate',
      '--scenario',
      'nope',
      '--out',
      join(dir, 'x'),
    ]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/unknown scenario 'nope': one of paper-fanout/);
  });

  it('checks its flags', async () => {
    const base: GenerateFlags = {
      seed: '1',
      start: '2025-01-01T00:00:00Z',
      format: 'protobuf',
      batchSpans: '1000',
      concurrency: '2',
    };
    const io = { stdout: process.stdout, now: () => 0 };
    await expect(runGenerate({ ...base, scenario: 'bobtail' }, io)).rejects.toThrow(
      /exactly one of --otlp URL and --out DIR/,
    );
    await expect(runGenerate({ ...base, out: dir }, io)).rejects.toThrow(
      /--scenario NAME \(or --spec FILE\) is required/,
    );
    await expect(
      runGenerate({ ...base, scenario: 'bobtail', out: dir, requests: '-3' }, io),
    ).rejects.toThrow(/--requests must be a positive integer, got '-3'/);
    await expect(
      runGenerate({ ...base, spec: join(dir, 'missing.json'), out: dir }, io),
    ).rejects.toThrow(/--spec .*missing.json/);
  });

  it('--preset microservices writes the application and its truth', async () => {
    const out = join(dir, 'microservices');
    const { code, stdout } = await tailscope([
      'generate',
      '--preset',
      'microservices',
      '--requests',
      '100',
      '--out',
      out,
    ]);
    expect(code).toBe(0);
    // 59 spans a request (4 pricing hosts, 10 route calls, 10 loop calls) + 6 duplicates (2 pairs, 2 loop calls).
    expect(stdout).toMatch(/generated 5906 spans \(100 requests/);
    expect(stdout).toMatch(/scenario microservices, seed 1; planted causes: host=customer-00/);
    const truth = JSON.parse(await readFile(join(out, 'truth.json'), 'utf8')) as {
      app: { edges: { leafService: string; structure: string }[]; duplicates: { spans: number } };
    };
    expect(truth.app.edges.map((e) => `${e.leafService}:${e.structure}`)).toEqual(
      expect.arrayContaining(['route:pool', 'pricing:parallel', 'redis:sequential']),
    );
    expect(truth.app.duplicates.spans).toBe(6);
  });
});
