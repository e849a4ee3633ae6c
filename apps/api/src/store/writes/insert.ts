import { open, rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { Store } from '../engine/client';
import { sql, raw } from '../sql/template';
import { noteStoreWrite } from './notes';

/**
 * The ingest write path into `otel_traces` (and our companion table): whole batches as
 * ClickHouse Native blocks, the engine's cheapest input format (bench/README.md has the
 * measurements against TSV and JSONEachRow).
 *
 * Embedded (chDB): @clickhouse/client's chDB connection turns insert bodies into UTF-8 text, so
 * binary data goes through a scratch file and `INSERT ... SELECT * FROM file(path, 'Native')`.
 * Server: the same bytes are streamed as the body of `INSERT ... FORMAT Native`.
 *
 * Every batch carries an `insert_deduplication_token` derived from its write-ahead-log range, so
 * replaying a batch after a crash that happened after the engine committed it inserts nothing.
 */

const IDENT = /^[A-Za-z_][A-Za-z0-9_.]*$/;

function columnList(columns: readonly string[]): string {
  for (const c of columns) {
    if (!IDENT.test(c)) throw new Error(`invalid column name ${JSON.stringify(c)}`);
  }
  return columns.map((c) => (c.includes('.') ? `\`${c}\`` : c)).join(', ');
}

export interface NativeInsert {
  table: string;
  columns: readonly string[];
  /** One or more Native blocks, as the buffers to write in order. */
  parts: readonly Buffer[];
  /** Same token, same batch: the engine drops a repeated one. */
  dedupToken: string;
  /** `max_partitions_per_insert_block` (the engine's default is 100 days of spans). */
  maxPartitions?: number;
  /** Scratch file for the embedded engine (created and removed here). */
  scratchPath: string;
}

/**
 * Writes every part to the scratch file or throws: a `writev` may write less than asked (a
 * full disk) without an error, and the engine would then read a truncated file as a permanent
 * "Cannot read all data" and the batch would be quarantined for the disk's fault.
 */
async function writeScratch(path: string, parts: readonly Buffer[]): Promise<void> {
  const fh = await open(path, 'w');
  try {
    let rest = parts.filter((p) => p.length > 0);
    while (rest.length > 0) {
      const chunk = rest.slice(0, 512);
      let { bytesWritten } = await fh.writev(chunk);
      if (bytesWritten === 0)
        throw Object.assign(new Error(`ENOSPC: short write to ${path}`), { code: 'ENOSPC' });
      // Drop what was written: whole parts, then the written head of the next one.
      const left: Buffer[] = [];
      for (const b of chunk) {
        if (bytesWritten >= b.length) bytesWritten -= b.length;
        else {
          left.push(b.subarray(bytesWritten));
          bytesWritten = 0;
        }
      }
      rest = [...left, ...rest.slice(512)];
    }
  } finally {
    await fh.close();
  }
}

export async function insertNative(store: Store, ins: NativeInsert): Promise<void> {
  if (ins.parts.length === 0) return;
  if (!IDENT.test(ins.table)) throw new Error(`invalid table name ${JSON.stringify(ins.table)}`);
  const target = raw(`${ins.table} (${columnList(ins.columns)})`);
  const partitions = ins.maxPartitions ?? 100;
  if (!Number.isSafeInteger(partitions) || partitions < 0)
    throw new Error(`invalid partition limit ${partitions}`);
  if (store.embedded) {
    try {
      await writeScratch(ins.scratchPath, ins.parts);
      await store.command(
        sql`INSERT INTO ${target} SETTINGS insert_deduplication_token = ${ins.dedupToken},
          max_partitions_per_insert_block = ${partitions}
          SELECT * FROM file(${ins.scratchPath}, 'Native')`,
      );
    } finally {
      await rm(ins.scratchPath, { force: true });
    }
    noteStoreWrite(store);
    return;
  }
  const q = sql`INSERT INTO ${target} SETTINGS insert_deduplication_token = ${ins.dedupToken},
    max_partitions_per_insert_block = ${partitions} FORMAT Native`;
  const res = await store.client.exec({
    query: q.text,
    query_params: q.params,
    values: Readable.from(ins.parts),
  });
  // The insert is done when the response has been read to its end.
  await new Promise<void>((resolve, reject) => {
    res.stream.on('end', resolve).on('error', reject).resume();
  });
  noteStoreWrite(store);
}

/**
 * Table settings the ingest guarantees rest on; they change no column, so the tables stay what a
 * Collector writes.
 *  - `non_replicated_deduplication_window`: a non-replicated MergeTree only honours
 *    insert_deduplication_token when it remembers recent block ids (the exporter's DDL leaves
 *    it at 0). Replicated tables deduplicate already and are left alone.
 *  - embedded only, `fsync_after_insert` / `fsync_part_directory`: once an insert returns, its
 *    part is on disk, so the write-ahead log can drop those records even if the machine (not
 *    only the process) goes down next. One fsync per part, at about one insert per second.
 */
export async function prepareForIngest(store: Store, table: string): Promise<void> {
  if (!IDENT.test(table)) throw new Error(`invalid table name ${JSON.stringify(table)}`);
  const rows = await store.query<{ engine: string; full: string }>(sql`
    SELECT engine, engine_full AS full
    FROM system.tables WHERE database = currentDatabase() AND name = ${table}`);
  const t = rows[0];
  if (!t || t.engine.startsWith('Replicated') || !t.engine.endsWith('MergeTree')) return;
  const wanted = ['non_replicated_deduplication_window = 1000'];
  if (store.embedded) wanted.push('fsync_after_insert = 1', 'fsync_part_directory = 1');
  const missing = wanted.filter((w) => !t.full.includes(w));
  if (missing.length === 0) return;
  await store.command(sql`ALTER TABLE ${raw(table)} MODIFY SETTING ${raw(missing.join(', '))}`);
}
