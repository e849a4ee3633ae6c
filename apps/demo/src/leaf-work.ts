/**
 * The work a leaf does. All of it is real computation whose duration is whatever the machine
 * makes of it: no latency is drawn from a distribution here.
 */
import { SeededRandom } from '@tailscope/analysis';

const DIMS = 16;

/** A host's shard of a toy vector index: `rows` vectors of 16 floats, filled from a seed. */
export function buildIndex(rows: number, seed: number): Float32Array {
  const index = new Float32Array(rows * DIMS);
  // Deterministic content; the values do not matter, the work does.
  const random = new SeededRandom(seed);
  for (let i = 0; i < index.length; i++) index[i] = random.float() - 0.5;
  return index;
}

/** Scores every row against a query and returns the best row and score: O(rows x 16). */
export function search(index: Float32Array, query: number): { row: number; score: number } {
  const q = new Float32Array(DIMS);
  for (let d = 0; d < DIMS; d++) q[d] = Math.sin(query + d);
  let best = -Infinity;
  let bestRow = -1;
  const rows = index.length / DIMS;
  for (let r = 0; r < rows; r++) {
    let s = 0;
    const base = r * DIMS;
    for (let d = 0; d < DIMS; d++) s += (index[base + d] ?? 0) * (q[d] ?? 0);
    if (s > best) {
      best = s;
      bestRow = r;
    }
  }
  return { row: bestRow, score: best };
}

interface Doc {
  id: number;
  title: string;
  tags: string[];
  score: number;
}

/**
 * GC pressure: each request builds `perRequest` short-lived documents (young-generation churn) and
 * replaces a slice of a large retained set, so old objects die in the old generation and V8 has
 * to mark-compact a big heap every so often. The pauses are V8's, not ours.
 */
export class GarbageMaker {
  private readonly retained: (Doc | undefined)[];
  private next = 0;
  private seq = 0;

  constructor(retainedCount: number) {
    this.retained = new Array<Doc | undefined>(retainedCount);
  }

  churn(perRequest: number): number {
    let checksum = 0;
    const replace = Math.max(1, Math.floor(perRequest / 4));
    for (let i = 0; i < perRequest; i++) {
      const id = this.seq++;
      const doc: Doc = {
        id,
        title: `document ${String(id)} of shard`,
        tags: [`t${String(id % 97)}`, `u${String(id % 89)}`],
        score: (id % 1000) / 1000,
      };
      checksum += doc.title.length + (doc.tags[0]?.length ?? 0);
      if (i < replace && this.retained.length > 0) {
        this.retained[this.next] = doc;
        this.next = (this.next + 1) % this.retained.length;
      }
    }
    return checksum;
  }
}

/** A sorted run of `n` keys (deterministic from `seed`). */
function sortedRun(n: number, seed: number): Float64Array {
  const run = new Float64Array(n);
  const random = new SeededRandom(seed);
  for (let i = 0; i < n; i++) run[i] = random.uint32();
  return run.sort();
}

/**
 * A compaction like an LSM store's: build `runs` sorted runs totalling `entries` keys and merge
 * them into one, synchronously (as a single-threaded store would), holding the event loop for as
 * long as that takes: O(entries x log(entries / runs)) for the sorts plus O(entries x runs).
 */
export function compact(
  entries: number,
  runs: number,
  seed: number,
): { entries: number; last: number } {
  const per = Math.max(1, Math.floor(entries / runs));
  const parts: Float64Array[] = [];
  for (let r = 0; r < runs; r++) parts.push(sortedRun(per, seed + r * 7919));
  const out = new Float64Array(per * runs);
  const pos = new Uint32Array(runs);
  for (let o = 0; o < out.length; o++) {
    let bestRun = 0;
    let best = Infinity;
    for (let r = 0; r < runs; r++) {
      const p = pos[r] ?? 0;
      const part = parts[r];
      if (part && p < part.length && (part[p] ?? Infinity) < best) {
        best = part[p] ?? Infinity;
        bestRun = r;
      }
    }
    out[o] = best;
    pos[bestRun] = (pos[bestRun] ?? 0) + 1;
  }
  return { entries: out.length, last: out[out.length - 1] ?? 0 };
}
