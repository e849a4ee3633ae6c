import { isIP } from 'node:net';
import type { Settings } from '../config';

/**
 * Open (no tokens) is fine on loopback, where only this machine can connect; on any other
 * address anyone who can reach it could read every trace and write spans. So such a start is
 * refused unless the operator says the network is trusted (--insecure).
 */

export class ExposureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExposureError';
  }
}

/** Whether `host` (a bind address or name) only accepts connections from this machine. */
export function isLoopback(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h);
  return mapped?.[1]?.startsWith('127.') ?? false;
}

/**
 * Throws when the settings would expose an open listener beyond this machine. A read-only server
 * (`ingest: false`) opens no OTLP listener, so only the API tokens are needed there.
 */
export function checkExposure(settings: Settings, opts: { ingest?: boolean } = {}): void {
  if (settings.insecure || isLoopback(settings.host)) return;
  const missing = [
    settings.apiTokens.length === 0 ? 'TAILSCOPE_API_TOKENS' : '',
    (opts.ingest ?? true) && settings.ingestTokens.length === 0 ? 'TAILSCOPE_INGEST_TOKENS' : '',
  ].filter((m) => m !== '');
  if (missing.length === 0) return;
  throw new ExposureError(
    [
      `refusing to listen on ${settings.host} without ${missing.join(' and ')}:`,
      'anyone who can reach that address could read every stored trace (REST API, dashboard)',
      'and write spans (OTLP). Either set the tokens (docs/operations.md, "Tokens"), listen on',
      '127.0.0.1 (--host 127.0.0.1), or, on a network you trust, start with --insecure',
      '(TAILSCOPE_INSECURE=1).',
    ].join(' '),
  );
}
