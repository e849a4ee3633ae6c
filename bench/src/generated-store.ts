// Loading a tracegen generator's spans into a Tailscope data directory for the benchmarks that
// run `tailscope serve` on stored data (bench:traces, bench:whatif-slider): decoded as the OTLP
// receiver does and inserted as the writer does, then merged. A directory that already holds
// the load is reused (loading millions of spans takes minutes).
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeOtlpProtobuf, type TraceGenerator } from '@tailscope/tracegen';
import {
  decodeTraceRequest,
  insertNative,
  migrate,
  openStore,
  selectStats,
  sql,
  TRACE_COLUMNS,
  TRACES_TABLE,
} from '@tailscope/api';

type Store = ReturnType<typeof openStore>;

/**
 * Loads `gen` into `dataDir` unless it already holds (99% of) its spans; throws when the
 * directory holds some other load. `tag` names the insert blocks and scratch files. Returns the
 * generated time range (plus a minute for the last spans).
 */
export async function loadGenerated(
  dataDir: string,
  gen: TraceGenerator,
  tag: string,
  what: string,
): Promise<{ fromMs: number; toMs: number }> {
  const range = {
    fromMs: gen.truth.start.epochMs,
    toMs: gen.truth.start.epochMs + gen.truth.durationMs + 60_000,
  };
  const store = openStore({ dataDir });
  try {
    await migrate(store);
    const have = (await selectStats(store)).spans;
    if (have >= gen.expectedSpans * 0.99) {
      console.log(`reusing ${have.toLocaleString()} spans in ${dataDir}`);
      return range;
    }
    if (have > 0) throw new Error(`${dataDir} holds ${have} spans, not this load: remove it`);
    console.log(`loading ${what}: ~${gen.expectedSpans.toLocaleString()} spans`);
    const t = performance.now();
    await insertGenerated(store, gen, tag);
    console.log(`loaded in ${((performance.now() - t) / 1000).toFixed(0)} s`);
    return range;
  } finally {
    await store.close();
  }
}

/**
 * Inserts every span of `gen` into `store`, decoded as the OTLP receiver does and inserted as
 * the writer does in blocks of ~250,000 spans, then merges the table (OPTIMIZE FINAL). `tag`
 * names the insert blocks and scratch files; `progress` hears the spans inserted so far.
 * Returns the spans inserted. Shared by every benchmark that loads a generator.
 */
export async function insertGenerated(
  store: Store,
  gen: TraceGenerator,
  tag: string,
  progress?: (spans: number) => void,
): Promise<number> {
  let parts: Buffer[] = [];
  let pending = 0;
  let done = 0;
  let block = 0;
  const flush = async (): Promise<void> => {
    if (parts.length === 0) return;
    await insertNative(store, {
      table: TRACES_TABLE,
      columns: TRACE_COLUMNS.map(([name]) => name),
      parts,
      dedupToken: `${tag}-${String(block)}`,
      scratchPath: join(
        tmpdir(),
        `tailscope-${tag}-${String(process.pid)}-${String(block++)}.native`,
      ),
    });
    done += pending;
    progress?.(done);
    parts = [];
    pending = 0;
  };
  for (const batch of gen.batches()) {
    const d = decodeTraceRequest(encodeOtlpProtobuf(batch));
    parts.push(...d.columns.tracesBlock());
    pending += d.accepted;
    if (pending >= 250_000) await flush();
  }
  await flush();
  await store.command(sql`OPTIMIZE TABLE otel_traces FINAL`);
  return done;
}
