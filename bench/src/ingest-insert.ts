import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  decodeTraceRequest,
  insertNative,
  migrate,
  openStore,
  prepareForIngest,
  TRACE_COLUMNS,
  TYPED_ATTRIBUTES_TABLE,
  TYPED_COLUMNS,
  type Store,
} from '@tailscope/api';

/**
 * Insert-only: the same requests, decoded once, inserted as the writer does (Native through
 * file(), otel_traces plus the typed-attribute rows, one dedup token per batch) into this
 * process's own embedded engine.
 */
export async function insertBench(
  bodies: Buffer[],
  batchRequests = 20,
  rounds = 5,
): Promise<{
  rowsPerSecond: number;
  rowsPerCpuSecond: number;
  batchRows: number;
  store: Store;
  close: () => Promise<void>;
}> {
  const dir = mkdtempSync(join(tmpdir(), 'tailscope-bench-insert-'));
  const store = openStore({ dataDir: dir });
  await migrate(store);
  for (const table of ['otel_traces', 'otel_traces_trace_id_ts', TYPED_ATTRIBUTES_TABLE])
    await prepareForIngest(store, table);
  const decoded = bodies.map((b) => decodeTraceRequest(b));
  const batches: { traces: Buffer[]; typed: Buffer[]; rows: number }[] = [];
  for (let i = 0; i < decoded.length; i += batchRequests) {
    const part = decoded.slice(i, i + batchRequests);
    batches.push({
      traces: part.flatMap((d) => d.columns.tracesBlock()),
      typed: part.flatMap((d) => d.columns.typedBlock()),
      rows: part.reduce((n, d) => n + d.accepted, 0),
    });
  }
  let rows = 0;
  let token = 0;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  for (let round = 0; round < rounds; round++) {
    for (const b of batches) {
      const dedupToken = `bench:${++token}`;
      const columns = TRACE_COLUMNS.map(([n]) => n);
      await insertNative(store, {
        table: 'otel_traces',
        columns,
        parts: b.traces,
        dedupToken,
        scratchPath: join(dir, 'batch.native'),
      });
      await insertNative(store, {
        table: TYPED_ATTRIBUTES_TABLE,
        columns: TYPED_COLUMNS.map(([n]) => n),
        parts: b.typed,
        dedupToken,
        scratchPath: join(dir, 'typed.native'),
      });
      rows += b.rows;
    }
  }
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return {
    rowsPerSecond: rows / seconds,
    rowsPerCpuSecond: rows / ((cpu.user + cpu.system) / 1e6),
    batchRows: batchRequests * (decoded[0]?.accepted ?? 0),
    store,
    close: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
