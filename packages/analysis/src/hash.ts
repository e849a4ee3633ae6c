import { SeededRandom } from './random';
import type { Random } from './types';

/**
 * Seeded, reproducible randomness that the SQL pushdown can reproduce too: the "one random
 * leaf" of a fan-out is picked by a hash of (seed, trace id, parent span id) that ClickHouse
 * computes with its built-in `murmurHash3_32`, so the SQL and this code pick the same leaf.
 */

const encoder = new TextEncoder();

/**
 * MurmurHash3 x86 32-bit (Austin Appleby) of the UTF-8 bytes of `text`, seed 0: equal to
 * ClickHouse's `murmurHash3_32(text)`. Returns an unsigned 32-bit integer. O(length).
 */
export function murmurHash3(text: string, seed = 0): number {
  const bytes = encoder.encode(text);
  const n = bytes.length;
  const blocks = n >>> 2;
  let h = seed >>> 0;
  const c1 = 0xcc9e2d51;
  const c2 = 0x1b873593;
  for (let i = 0; i < blocks; i++) {
    const o = i << 2;
    let k =
      (bytes[o] as number) |
      ((bytes[o + 1] as number) << 8) |
      ((bytes[o + 2] as number) << 16) |
      ((bytes[o + 3] as number) << 24);
    k = Math.imul(k, c1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, c2);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  const tail = blocks << 2;
  let k1 = 0;
  const rest = n & 3;
  if (rest === 3) k1 ^= (bytes[tail + 2] as number) << 16;
  if (rest >= 2) k1 ^= (bytes[tail + 1] as number) << 8;
  if (rest >= 1) {
    k1 ^= bytes[tail] as number;
    k1 = Math.imul(k1, c1);
    k1 = (k1 << 15) | (k1 >>> 17);
    k1 = Math.imul(k1, c2);
    h ^= k1;
  }
  h ^= n;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * The hash that picks a fan-out's "one random leaf": murmurHash3 of
 * `${seed}:${traceId}:${parentSpanId}` (seed a non-negative integer below 2^32, written in
 * decimal). The SQL computes the same string and hash. O(length of the ids).
 */
export function fanoutPickHash(seed: number, traceId: string, parentSpanId: string): number {
  return murmurHash3(`${seed >>> 0}:${traceId}:${parentSpanId}`);
}

/**
 * Index 0..n-1 of the picked call from a 32-bit hash: floor(hash * n / 2^32), exact in double
 * precision for n < 2^21. Uniform over the calls when the hash is. O(1).
 */
export function pickIndex(hash32: number, n: number): number {
  return Math.floor((hash32 * n) / 4294967296);
}

/**
 * A seeded uniform generator in [0, 1): sfc32 seeded through murmurHash3 of the seed's text, so
 * nearby seeds (1, 2, ...) and string seeds ("host=db-3") give unrelated streams.
 * Each call is O(1); the stream depends only on the seed.
 */
export function randomFromSeed(seed: number | string): Random {
  const text = String(seed);
  const r = SeededRandom.fromWords(
    murmurHash3(text, 0x9e3779b9),
    murmurHash3(text, 0x85ebca6b),
    murmurHash3(text, 0xc2b2ae35),
    murmurHash3(text, 0x27d4eb2f),
  );
  return () => r.float();
}
