import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSettings } from '../config';
import { checkExposure, isLoopback } from './exposure';
import { TokenSet, bearerToken, checkBearer } from '../foundation';

const A = 'a'.repeat(20);
const B = 'b'.repeat(20);

describe('token settings', () => {
  it('reads a comma-separated list, and nothing when unset', () => {
    expect(loadSettings({}).apiTokens).toEqual([]);
    expect(loadSettings({ TAILSCOPE_API_TOKENS: ` ${A} , ${B} ` }).apiTokens).toEqual([A, B]);
    expect(loadSettings({}, { ingestTokens: A }).ingestTokens).toEqual([A]);
  });

  it('reads a file: one a line or comma-separated, # comments skipped', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tailscope-tokens-'));
    try {
      const file = join(dir, 'tokens');
      writeFileSync(file, `# ours, rotated monthly\n${A}\n\n${B},${'c'.repeat(16)}\n`);
      expect(loadSettings({ TAILSCOPE_INGEST_TOKENS: file }).ingestTokens).toEqual([
        A,
        B,
        'c'.repeat(16),
      ]);
      expect(() => loadSettings({ TAILSCOPE_API_TOKENS: join(dir, 'missing') })).toThrow(
        /names a file that does not exist/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses short tokens and ones that cannot be a header value', () => {
    expect(() => loadSettings({ TAILSCOPE_API_TOKENS: 'secret' })).toThrow(
      /shorter than 16 characters/,
    );
    expect(() => loadSettings({ TAILSCOPE_API_TOKENS: `${A} x` })).toThrow(/printable ASCII/);
  });

  it('reads CORS origins, allowed hosts, TLS paths and insecure', () => {
    const s = loadSettings({
      TAILSCOPE_CORS_ORIGINS: 'http://a.example, https://b.example:8443',
      TAILSCOPE_ALLOWED_HOSTS: 'Tailscope.Internal',
      TAILSCOPE_TLS_CERT: '/c.pem',
      TAILSCOPE_TLS_KEY: '/k.pem',
      TAILSCOPE_INSECURE: '1',
    });
    expect(s).toMatchObject({
      corsOrigins: ['http://a.example', 'https://b.example:8443'],
      allowedHosts: ['tailscope.internal'],
      tlsCert: '/c.pem',
      tlsKey: '/k.pem',
      insecure: true,
    });
    expect(loadSettings({ TAILSCOPE_INSECURE: '0' }).insecure).toBe(false);
    expect(() => loadSettings({ TAILSCOPE_CORS_ORIGINS: 'http://a.example/path' })).toThrow(
      /scheme:\/\/host\[:port\]/,
    );
    expect(() => loadSettings({ TAILSCOPE_TLS_CERT: '/c.pem' })).toThrow(/set both or neither/);
  });
});

describe('tokens', () => {
  it('match only a configured token, and an empty set is open', () => {
    const t = new TokenSet([A, B]);
    expect(t.matches(A)).toBe(true);
    expect(t.matches(B)).toBe(true);
    expect(t.matches(A.slice(1))).toBe(false);
    expect(t.matches(`${A}x`)).toBe(false);
    expect(new TokenSet([]).open).toBe(true);
    expect(checkBearer(new TokenSet([]), undefined)).toBe('ok');
    expect(checkBearer(t, undefined)).toBe('missing');
    expect(checkBearer(t, `Bearer ${B}`)).toBe('ok');
    expect(checkBearer(t, `bearer  ${A} `)).toBe('ok');
    expect(checkBearer(t, `Basic ${A}`)).toBe('missing');
    expect(checkBearer(t, 'Bearer nope-nope-nope-nope')).toBe('wrong');
    expect(bearerToken(['Bearer x', 'Bearer y'])).toBe('x');
  });
});

describe('exposure', () => {
  it('tells loopback addresses from the rest', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1'])
      expect(isLoopback(h), h).toBe(true);
    for (const h of ['0.0.0.0', '::', '10.0.0.5', '192.168.1.2', 'example.com', '::ffff:10.0.0.1'])
      expect(isLoopback(h), h).toBe(false);
  });

  it('refuses an open non-loopback bind unless insecure or both token lists are set', () => {
    expect(() => {
      checkExposure(loadSettings({ TAILSCOPE_HOST: '0.0.0.0' }));
    }).toThrow(/without TAILSCOPE_API_TOKENS and TAILSCOPE_INGEST_TOKENS/);
    expect(() => {
      checkExposure(loadSettings({ TAILSCOPE_HOST: '::', TAILSCOPE_INGEST_TOKENS: A }));
    }).toThrow(/without TAILSCOPE_API_TOKENS:/);
    checkExposure(loadSettings({ TAILSCOPE_HOST: '0.0.0.0', TAILSCOPE_INSECURE: 'yes' }));
    checkExposure(
      loadSettings({
        TAILSCOPE_HOST: '0.0.0.0',
        TAILSCOPE_API_TOKENS: A,
        TAILSCOPE_INGEST_TOKENS: B,
      }),
    );
    checkExposure(loadSettings({}));
  });
});
