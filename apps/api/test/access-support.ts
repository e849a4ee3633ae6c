import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import type { ExportResult } from '@opentelemetry/core';
import { otlpFixtures } from '../src';

/** Shared by the access-* tests (issue #17): tokens, headers, TLS and /metrics. */

export const API_TOKEN = 'api-token-0123456789abcdef';
export const INGEST_TOKEN = 'ingest-token-0123456789abcdef';

/**
 * Sends `count` spans (real SDK ReadableSpans, seeded) through a real OTel exporter and says
 * what the exporter reported: SUCCESS, or FAILED with the error it got from the receiver.
 */
export async function exportSpans(
  exporter: SpanExporter,
  count: number,
  seed: number,
): Promise<ExportResult> {
  const result = await new Promise<ExportResult>((resolve) => {
    exporter.export(otlpFixtures.fanoutSpans(count, seed), resolve);
  });
  await exporter.shutdown();
  return result;
}

/** A request with any headers, Host included (fetch does not let a caller set Host). */
export function rawRequest(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: opts.method ?? 'GET', headers: opts.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** A self-signed certificate for 127.0.0.1 and localhost, made with openssl in `dir`. */
export function selfSignedCert(dir: string): { certPath: string; keyPath: string; cert: Buffer } {
  const certPath = join(dir, 'cert.pem');
  const keyPath = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout',
      keyPath,
      '-out',
      certPath,
    ],
    { stdio: 'ignore' },
  );
  return { certPath, keyPath, cert: readFileSync(certPath) };
}

/** One sample of the Prometheus text format: `name{labels} value`. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the Prometheus text exposition format (what /metrics answers); throws on a bad line. */
export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/.exec(line);
    if (!m) throw new Error(`not a Prometheus sample: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[l[1] ?? ''] = l[2] ?? '';
    const raw = m[3] ?? '';
    const value = raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : Number(raw);
    // prom-client writes NaN as `Nan`; Prometheus parses it case-insensitively (ParseFloat).
    if (Number.isNaN(value) && raw.toLowerCase() !== 'nan')
      throw new Error(`bad value in: ${line}`);
    samples.push({ name: m[1] ?? '', labels, value });
  }
  return samples;
}

/** The sum of the samples named `name` whose labels include `labels`. */
export function metric(
  samples: readonly Sample[],
  name: string,
  labels: Record<string, string> = {},
): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((n, s) => n + s.value, 0);
}
