/** requestTreesFromColumns' working state: one trace's spans in typed arrays, reused. */

/** Strings numbered in order of first sight (hosts, modes of the request trees). */
export class Dict {
  readonly values: string[] = [];
  private readonly ix = new Map<string, number>();
  of(v: string): number {
    let i = this.ix.get(v);
    if (i === undefined) {
      i = this.values.length;
      this.values.push(v);
      this.ix.set(v, i);
    }
    return i;
  }
}

/**
 * Span keys (53-bit hashes as float64, >= 0) to local indices for one trace at a time: open
 * addressing over typed arrays, emptied by bumping a generation instead of clearing (a Map per
 * trace was a fifth of building the trees).
 */
export class KeyIndex {
  private keys: Float64Array;
  private vals: Int32Array;
  private gens: Uint32Array;
  private mask: number;
  private gen = 1;

  constructor(n: number) {
    const size = 2 ** Math.max(4, Math.ceil(Math.log2(2 * Math.max(1, n))));
    this.keys = new Float64Array(size);
    this.vals = new Int32Array(size);
    this.gens = new Uint32Array(size);
    this.mask = size - 1;
  }

  /** Forgets every key. */
  reset(): void {
    if (++this.gen > 0xffff_ffff) {
      this.gens.fill(0);
      this.gen = 1;
    }
  }

  private slot(k: number): number {
    let i = ((k % 4294967296) >>> 0) & this.mask;
    while (this.gens[i] === this.gen && this.keys[i] !== k) i = (i + 1) & this.mask;
    return i;
  }

  /** The index of key k, or -1. */
  get(k: number): number {
    const i = this.slot(k);
    return this.gens[i] === this.gen ? this.vals[i]! : -1;
  }

  /** Sets k to v unless k is there; returns whether it was added. */
  add(k: number, v: number): boolean {
    const i = this.slot(k);
    if (this.gens[i] === this.gen) return false;
    this.gens[i] = this.gen;
    this.keys[i] = k;
    this.vals[i] = v;
    return true;
  }
}

/** One trace's deduplicated spans (local indices) and their links. */
export interface Scratch {
  span: Uint32Array; // local -> global span index
  parent: Int32Array; // local parent, -1 when missing or a root
  children: Uint32Array; // child count
  firstAnswer: Int32Array; // earliest SERVER / CONSUMER child (row order), -1 when none
  callNode: Int32Array; // local -> node index of the request, -1 when not a call (root: 0)
  // Per call (in span order), then sorted by start:
  callSpan: Uint32Array;
  callCaller: Int32Array;
  callOrder: Uint32Array;
  /** Span key -> local index, for the trace being linked. */
  ids: KeyIndex;
}

export function scratch(n: number): Scratch {
  return {
    span: new Uint32Array(n),
    parent: new Int32Array(n),
    children: new Uint32Array(n),
    firstAnswer: new Int32Array(n),
    callNode: new Int32Array(n),
    callSpan: new Uint32Array(n),
    callCaller: new Int32Array(n),
    callOrder: new Uint32Array(n),
    ids: new KeyIndex(n),
  };
}

/** The call (or the root) a span runs inside: nearest ancestor-or-self that is a call. */
export function ownerOf(s: Scratch, from: number): number {
  let i = from;
  for (let hops = 0; hops < 10_000 && i >= 0; hops++) {
    const node = s.callNode[i]!;
    if (node >= 0) return node;
    i = s.parent[i]!;
  }
  return 0;
}
