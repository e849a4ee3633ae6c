import { existsSync, readFileSync } from 'node:fs';

/**
 * The access settings (tokens, TLS, CORS, allowed Host names), read from the environment like
 * every other setting in config.ts. Token settings take a list or a file: a value that names an
 * existing file is read (one token a line, or comma-separated; `#` starts a comment line), so
 * secrets can come from a mounted file instead of the process environment.
 */

type AccessKey =
  'ingestTokens' | 'apiTokens' | 'insecure' | 'allowedHosts' | 'corsOrigins' | 'tlsCert' | 'tlsKey';

/** Shorter tokens are refused: they can be guessed. `openssl rand -hex 32` makes a good one. */
export const MIN_TOKEN_LENGTH = 16;
/** Bearer tokens are header values: visible ASCII without spaces or commas. */
const TOKEN_CHARS = /^[\x21-\x2b\x2d-\x7e]+$/;

/** Items separated by commas or new lines; lines starting with `#` are comments. */
function list(raw: string | undefined): string[] {
  return (raw ?? '')
    .split('\n')
    .filter((line) => !line.trim().startsWith('#'))
    .flatMap((line) => line.split(','))
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** Tokens from a comma-separated list or from the file the value names. */
export function readTokens(name: string, raw: string | undefined): string[] {
  if (raw === undefined || raw.trim() === '') return [];
  const value = raw.trim();
  const looksLikePath = value.startsWith('/') || value.startsWith('./') || value.startsWith('../');
  let tokens: string[];
  if (existsSync(value)) tokens = list(readFileSync(value, 'utf8'));
  else if (looksLikePath) throw new Error(`${name} names a file that does not exist: ${value}`);
  else tokens = list(value);
  if (tokens.length === 0) throw new Error(`${name} is set but holds no token`);
  for (const t of tokens) {
    if (t.length < MIN_TOKEN_LENGTH)
      throw new Error(
        `${name}: a token is shorter than ${MIN_TOKEN_LENGTH} characters (make one with: openssl rand -hex 32)`,
      );
    if (!TOKEN_CHARS.test(t))
      throw new Error(`${name}: tokens are printable ASCII without spaces or commas`);
  }
  return tokens;
}

function flag(raw: string | undefined): boolean {
  if (raw === undefined || raw === '') return false;
  return !['0', 'false', 'no', 'off'].includes(raw.toLowerCase());
}

function origins(raw: string | undefined): string[] {
  return list(raw).map((o) => {
    let url: URL;
    try {
      url = new URL(o);
    } catch {
      throw new Error(`TAILSCOPE_CORS_ORIGINS: not an origin: ${JSON.stringify(o)}`);
    }
    if (url.origin !== o.replace(/\/$/, ''))
      throw new Error(
        `TAILSCOPE_CORS_ORIGINS: give origins as scheme://host[:port], got ${JSON.stringify(o)}`,
      );
    return url.origin;
  });
}

export function accessSettings(pick: (key: AccessKey, envName: string) => string | undefined) {
  const tlsCert = pick('tlsCert', 'TAILSCOPE_TLS_CERT') || undefined;
  const tlsKey = pick('tlsKey', 'TAILSCOPE_TLS_KEY') || undefined;
  if ((tlsCert === undefined) !== (tlsKey === undefined))
    throw new Error('TAILSCOPE_TLS_CERT and TAILSCOPE_TLS_KEY go together: set both or neither');
  return {
    ingestTokens: readTokens(
      'TAILSCOPE_INGEST_TOKENS',
      pick('ingestTokens', 'TAILSCOPE_INGEST_TOKENS'),
    ),
    apiTokens: readTokens('TAILSCOPE_API_TOKENS', pick('apiTokens', 'TAILSCOPE_API_TOKENS')),
    insecure: flag(pick('insecure', 'TAILSCOPE_INSECURE')),
    allowedHosts: list(pick('allowedHosts', 'TAILSCOPE_ALLOWED_HOSTS')).map((h) => h.toLowerCase()),
    corsOrigins: origins(pick('corsOrigins', 'TAILSCOPE_CORS_ORIGINS')),
    tlsCert,
    tlsKey,
  };
}
