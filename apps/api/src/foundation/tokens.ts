import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * A set of bearer tokens, checked in constant time: each candidate is hashed (so lengths do not
 * leak through `timingSafeEqual`'s length check) and compared with every token, without stopping
 * at the first match.
 */
export class TokenSet {
  private readonly digests: Buffer[];

  constructor(tokens: readonly string[]) {
    this.digests = tokens.map(digest);
  }

  /** No tokens configured: the listener is open. */
  get open(): boolean {
    return this.digests.length === 0;
  }

  matches(candidate: string): boolean {
    const d = digest(candidate);
    let found = false;
    for (const t of this.digests) found = timingSafeEqual(d, t) || found;
    return found;
  }
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

/** The token of an `Authorization: Bearer <token>` value; undefined for any other scheme. */
export function bearerToken(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  const m = /^\s*bearer\s+(\S+)\s*$/i.exec(value ?? '');
  return m?.[1];
}

export type TokenVerdict = 'ok' | 'missing' | 'wrong';

/** What an `Authorization` header says against `tokens` (always 'ok' when they are open). */
export function checkBearer(tokens: TokenSet, header: string | string[] | undefined): TokenVerdict {
  if (tokens.open) return 'ok';
  const token = bearerToken(header);
  if (token === undefined) return 'missing';
  return tokens.matches(token) ? 'ok' : 'wrong';
}
