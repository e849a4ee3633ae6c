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
