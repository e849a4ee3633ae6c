/**
 * The one seeded generator of Tailscope (analysis, the simulator, reports, test fixtures). sfc32 (Chris Doty-Humphrey's Small Fast Counting
 * generator, 128-bit state, passes PractRand) seeded through splitmix32, so seeds 1 and 2 give
 * unrelated streams. A class rather than a closure so the replay loops can inline `float()`.
 */
export class SeededRandom {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  /** `seed`: any finite number; its integer part (up to 2^53) selects the stream. */
  constructor(seed: number) {
    const s = Number.isFinite(seed) ? Math.trunc(seed) : 0;
    let x = (s >>> 0) ^ Math.imul(Math.floor(s / 4294967296) >>> 0, 0x9e3779b9);
    const next = (): number => {
      x = (x + 0x9e3779b9) | 0;
      let z = x;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    // Warm up: the first outputs of a freshly seeded sfc32 are weakly mixed.
    for (let i = 0; i < 12; i++) this.uint32();
  }

  /**
   * A generator started from four state words (not all zero) rather than a number: for seeds
   * that are text (`randomFromSeed` hashes them). Warmed up like the numeric constructor.
   */
  static fromWords(a: number, b: number, c: number, d: number): SeededRandom {
    const r = new SeededRandom(0);
    r.a = a | 0;
    r.b = b | 0;
    r.c = c | 0;
    r.d = d | 0;
    for (let i = 0; i < 12; i++) r.uint32();
    return r;
  }

  /**
   * A copy at this state: the same stream from here on, drawn apart (a caller plans what a
   * later draw will read; bootstrapReads).
   */
  clone(): SeededRandom {
    const r = new SeededRandom(0);
    r.a = this.a;
    r.b = this.b;
    r.c = this.c;
    r.d = this.d;
    return r;
  }

  /** A uniform 32-bit unsigned integer. */
  uint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** A uniform float in [0, 1) with 32 bits of resolution. */
  float(): number {
    return this.uint32() / 4294967296;
  }

  /** A uniform integer in [0, n), n >= 1 and below 2^32. */
  below(n: number): number {
    return Math.floor(this.float() * n);
  }

  /** A standard normal variate (Marsaglia polar method; the spare value is dropped for simplicity). */
  normal(): number {
    for (;;) {
      const u = 2 * this.float() - 1;
      const v = 2 * this.float() - 1;
      const s = u * u + v * v;
      if (s > 0 && s < 1) return u * Math.sqrt((-2 * Math.log(s)) / s);
    }
  }

  /** A Gamma(shape, 1) variate, shape > 0 (Marsaglia and Tsang 2000; boosted for shape < 1). */
  gamma(shape: number): number {
    if (shape < 1) return this.gamma(shape + 1) * Math.pow(1 - this.float(), 1 / shape);
    const d = shape - 1 / 3;
    const c = 1 / Math.sqrt(9 * d);
    for (;;) {
      const x = this.normal();
      const v0 = 1 + c * x;
      if (v0 <= 0) continue;
      const v = v0 * v0 * v0;
      const u = 1 - this.float();
      if (Math.log(u) < 0.5 * x * x + d - d * v + d * Math.log(v)) return d * v;
    }
  }

  /** A Beta(a, b) variate, a, b > 0. */
  beta(a: number, b: number): number {
    const x = this.gamma(a);
    const y = this.gamma(b);
    return x / (x + y);
  }
}
