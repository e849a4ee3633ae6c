import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import protobuf from 'protobufjs/minimal';
import { ProtoReader, type Store } from '@tailscope/api';

/**
 * The measurements behind the ingest design choices (bench/README.md): what the engine's insert
 * costs per row from each input format for the same otel_traces rows, and how fast the two
 * protobuf readers walk the same requests. Bench-only SQL on a scratch copy of the table.
 */

const fmtUs = (us: number) => us.toFixed(2);

export async function formatsBench(store: Store, rows = 20_000, repeats = 3): Promise<string[]> {
  const chdb = store.embedded?.chdb;
  if (!chdb) return ['formats: embedded engine only'];
  await chdb.queryAsync('DROP TABLE IF EXISTS bench_copy');
  await chdb.queryAsync('CREATE TABLE bench_copy AS otel_traces');
  const select = `SELECT * FROM otel_traces LIMIT ${rows}`;
  const payload = async (format: string) =>
    Buffer.from((await chdb.queryAsync(`${select} FORMAT ${format}`)).bytes());
  const out: string[] = [];
  const time = async (label: string, bytes: number, insert: () => Promise<unknown>) => {
    let best = Infinity;
    for (let i = 0; i < repeats; i++) {
      const t0 = performance.now();
      await insert();
      best = Math.min(best, performance.now() - t0);
    }
    out.push(
      `format ${label.padEnd(28)} ${fmtUs((best * 1000) / rows)} us/row  (${rows} rows, ${(bytes / rows).toFixed(0)} bytes/row, best of ${repeats})`,
    );
  };
  for (const format of ['TSV', 'JSONEachRow'] as const) {
    const body = await payload(format === 'TSV' ? 'TabSeparated' : format);
    await time(`${format} (rawInsert)`, body.length, () =>
      chdb.rawInsert({ table: 'bench_copy', values: body, format }),
    );
  }
  for (const format of ['Native', 'RowBinaryWithNamesAndTypes']) {
    const body = await payload(format);
    const path = join(tmpdir(), `tailscope-bench-${process.pid}.${format}`);
    await writeFile(path, body);
    await time(`${format} (file())`, body.length, () =>
      chdb.queryAsync(`INSERT INTO bench_copy SELECT * FROM file('${path}', '${format}')`),
    );
    await rm(path, { force: true });
  }
  await chdb.queryAsync('DROP TABLE IF EXISTS bench_copy');
  return out;
}

/** Message fields to descend into, per message (field number -> message name). */
const SCHEMA: Record<string, Record<number, string>> = {
  req: { 1: 'rs' },
  rs: { 1: 'res', 2: 'ss' },
  res: { 1: 'kv' },
  ss: { 1: 'scope', 2: 'span' },
  scope: { 3: 'kv' },
  span: { 9: 'kv', 11: 'ev', 13: 'ln', 15: 'st' },
  kv: { 2: 'any' },
  any: { 5: 'arr', 6: 'kvl' },
  arr: { 1: 'any' },
  kvl: { 1: 'kv' },
  ev: { 3: 'kv' },
  ln: { 4: 'kv' },
  st: {},
};

function walkOwn(r: ProtoReader, msg: string, end: number): number {
  let fields = 0;
  const kids = SCHEMA[msg] ?? {};
  while (r.p < end) {
    const tag = r.varint32(end);
    const child = kids[tag >>> 3];
    fields++;
    if (child !== undefined && (tag & 7) === 2) {
      const e = r.lenEnd(end);
      fields += walkOwn(r, child, e);
      r.p = e;
    } else r.skip(tag & 7, end);
  }
  return fields;
}

function walkProtobufjs(r: protobuf.Reader, msg: string, end: number): number {
  let fields = 0;
  const kids = SCHEMA[msg] ?? {};
  while (r.pos < end) {
    const tag = r.uint32();
    const child = kids[tag >>> 3];
    fields++;
    if (child !== undefined && (tag & 7) === 2) {
      const len = r.uint32();
      const e = r.pos + len;
      fields += walkProtobufjs(r, child, e);
      r.pos = e;
    } else r.skipType(tag & 7);
  }
  return fields;
}

export function readerBench(bodies: Buffer[]): string[] {
  const run = (label: string, walk: (b: Buffer) => number) => {
    let fields = 0;
    let n = 0;
    const t0 = performance.now();
    while (performance.now() - t0 < 2000) {
      for (const b of bodies) {
        fields += walk(b);
        n++;
      }
    }
    const s = (performance.now() - t0) / 1000;
    return `reader ${label.padEnd(20)} ${Math.round((n * 1000) / s).toLocaleString('en-US')} spans/s walked (${Math.round(fields / s / 1e6)}M fields/s)`;
  };
  return [
    run('hand-rolled', (b) => walkOwn(new ProtoReader(b), 'req', b.length)),
    run('protobufjs Reader', (b) => walkProtobufjs(protobuf.Reader.create(b), 'req', b.length)),
  ];
}
