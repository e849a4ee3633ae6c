import { SeededRandom } from '@tailscope/analysis';

/**
 * The seeded draws behind every trace: @tailscope/analysis's one generator (SeededRandom),
 * started from four words hashed from the seed text (FNV-1a, then splitmix32).
 * Never Math.random: the same seed must give the same traces, byte for byte.
 */

/** A seeded random source: floats uniform in [0, 1). Same shape as @tailscope/analysis Random. */
export type Random = () => number;

function splitmix32(state: number): [number, number] {
  const next = (state + 0x9e3779b9) | 0;
  let z = next;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return [next, (z ^ (z >>> 16)) >>> 0];
}

/** Four 32-bit words from any seed text (FNV-1a over UTF-16 units, then splitmix32). */
function seedWords(seed: string): [number, number, number, number] {
  let h = 0x811c9dc5 ^ seed.length;
  for (let i = 0; i < seed.length; i++) h = Math.imul(h ^ seed.charCodeAt(i), 0x01000193);
  let s = h | 0;
  const out: number[] = [];
  for (let i = 0; i < 4; i++) {
    const [next, word] = splitmix32(s);
    s = next;
    out.push(word);
  }
  const [a = 0, b = 0, c = 0, d = 0] = out;
  // The generator must not start from the all-zero state.
  return a | b | c | d ? [a, b, c, d] : [1, 0, 0, 0];
}

export class Rng {
  private readonly r: SeededRandom;

  constructor(seed: string) {
    this.r = SeededRandom.fromWords(...seedWords(seed));
  }

  /** An unsigned 32-bit integer. */
  u32(): number {
    return this.r.uint32();
  }

  /** Uniform in [0, 1), 32 bits of resolution (enough for latencies and 1e-4 probabilities). */
  float(): number {
    return this.u32() / 4294967296;
  }

  /** Uniform in (0, 1]: safe under Math.log. */
  positive(): number {
    return (this.u32() + 1) / 4294967296;
  }

  /** An integer uniform in [0, n). */
  int(n: number): number {
    return Math.floor(this.float() * n);
  }

  /** Standard normal by Box-Muller (one value per two uniforms: no hidden cached state). */
  normal(): number {
    return Math.sqrt(-2 * Math.log(this.positive())) * Math.cos(2 * Math.PI * this.float());
  }

  /** Fills `len` bytes of `dst` from `offset`. */
  fill(dst: Uint8Array, offset: number, len: number): void {
    for (let i = 0; i < len; i += 4) {
      let w = this.u32();
      for (let k = 0; k < 4 && i + k < len; k++) {
        dst[offset + i + k] = w & 0xff;
        w >>>= 8;
      }
    }
  }
}

/** The stream named `label` of a run seeded with `seed`: independent of the other streams. */
export function stream(seed: string, label: string): Rng {
  return new Rng(`${seed}\u0000${label}`);
}

/** A `Random` function for tests and for sampling truth distributions. */
export function createRandom(seed: number | string): Random {
  const rng = new Rng(String(seed));
  return () => rng.float();
}

/** Adapts a plain `Random` to the methods distributions draw with. */
export function fromRandom(random: Random): Pick<Rng, 'float' | 'positive' | 'normal'> {
  const positive = () => 1 - random();
  return {
    float: random,
    positive,
    normal: () => Math.sqrt(-2 * Math.log(positive())) * Math.cos(2 * Math.PI * random()),
  };
}
