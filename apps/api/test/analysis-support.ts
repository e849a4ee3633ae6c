import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Random, type SpanRecord } from '@tailscope/analysis';
import { randomFromSeed } from '@tailscope/analysis/testing';
import {
  createGenerator,
  encodeOtlpProtobuf,
  type ScenarioSpec,
  type ScenarioTruth,
} from '@tailscope/tracegen';
import { decodeTraceRequest } from '../src/ingest/decode-protobuf';
import { TRACE_COLUMNS } from '../src/ingest/span-columns';
import { migrate, openStore, TRACES_TABLE, type Store, type StoreOptions } from '../src/store';
import { insertNative } from '../src/store/writes/insert';

/**
 * A store on a fresh temporary data directory, migrated; `close` removes the directory.
 * `opts` are passed to openStore (e.g. a larger query budget).
 */
export async function openTempStore(
  prefix: string,
  opts: Omit<StoreOptions, 'dataDir'> = {},
): Promise<{ store: Store; close: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), `tailscope-${prefix}-`));
  const store = openStore({ ...opts, dataDir: dir });
  await migrate(store);
  return {
    store,
    close: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function nsText(ns: bigint): string {
  const s = ns / 1_000_000_000n;
  const f = ns % 1_000_000_000n;
  return `${s}.${f.toString().padStart(9, '0')}`;
}

/** One otel_traces row as JSONEachRow, from a span record (kind stored as given). */
export function spanRow(s: SpanRecord): string {
  return JSON.stringify({
    Timestamp: nsText(s.startNs),
    TraceId: s.traceId,
    SpanId: s.spanId,
    ParentSpanId: s.parentSpanId,
    SpanName: s.name,
    SpanKind: s.kind,
    ServiceName: s.service,
    ResourceAttributes: s.resource,
    SpanAttributes: s.attributes,
    Duration: s.durationNs.toString(),
    StatusCode: 'Unset',
  });
}

/** Inserts span records with a plain INSERT ... FORMAT JSONEachRow, in batches. */
export async function insertSpans(store: Store, spans: readonly SpanRecord[]): Promise<void> {
  for (let i = 0; i < spans.length; i += 20_000) {
    const body = spans
      .slice(i, i + 20_000)
      .map(spanRow)
      .join('\n');
    await store.client.command({ query: `INSERT INTO otel_traces FORMAT JSONEachRow\n${body}` });
  }
}

const hex = (r: Random, n: number): string => {
  let s = '';
  for (let i = 0; i < n; i++) s += Math.floor(r() * 16).toString(16);
  return s;
};

const pick = <T>(r: Random, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;

/** Epoch ns of the synthetic data: 2023-11-14T22:13:20Z. */
export const T0_NS = 1_700_000_000_000_000_000n;

/**
 * Seeded spans exercising every rule of fan-out detection: CLIENT->SERVER pairs, SERVER
 * children directly under the parent, CLIENT calls without SERVER span (named by peer.service
 * or server.address), both SpanKind spellings, sequential (non-overlapping) calls, zero-length
 * calls at one instant, two leaf operations under one parent, missing parents, every host key
 * of the convention, sharing modes present or not, attributes on either span or resource, and
 * background spans (some nested) on the leaf hosts. Requests are 40 ms apart from T0_NS.
 */
export function mixedSpans(seed: number, requests: number): SpanRecord[] {
  const r = randomFromSeed(`mixed-${seed}`);
  const spans: SpanRecord[] = [];
  const hosts = Array.from({ length: 8 }, (_, i) => `kv-${i}`);
  const resourceOf = (h: string): Record<string, string> => {
    const n = Number(h.slice(3));
    const key = ['host.name', 'k8s.node.name', 'host.id', 'service.instance.id'][n % 4] as string;
    const res: Record<string, string> = { 'service.name': 'kv', [key]: h, rack: `r${n % 3}` };
    if (n % 3 !== 2) res['host.sharing_mode'] = n % 3 === 0 ? 'dedicated' : 'contended';
    return res;
  };
  const serverKind = (): string => (r() < 0.5 ? 'Server' : 'SPAN_KIND_SERVER');
  const clientKind = (): string => (r() < 0.5 ? 'Client' : 'SPAN_KIND_CLIENT');
  for (let q = 0; q < requests; q++) {
    const traceId = hex(r, 32);
    const rootId = hex(r, 16);
    const rootStart = T0_NS + BigInt(q) * 40_000_000n + BigInt(Math.floor(r() * 1e6));
    const shape = pick(r, ['pairs', 'pairs', 'direct', 'client-only', 'mixed'] as const);
    const ops = r() < 0.2 ? ['get', 'put'] : [pick(r, ['get', 'put'])];
    let end = rootStart;
    for (const op of ops) {
      const width = 1 + Math.floor(r() * 10);
      let seqStart = rootStart + 100_000n;
      for (let i = 0; i < width; i++) {
        const sequential = r() < 0.1;
        const start = sequential ? seqStart : rootStart + BigInt(Math.floor(r() * 2e6));
        const durMs = r() < 0.05 ? 0 : r() < 0.05 ? 200 + r() * 300 : 1 + r() * 20;
        const dur = BigInt(Math.floor(durMs * 1e6));
        if (sequential) seqStart = start + dur + 1n;
        if (start + dur > end) end = start + dur;
        const h = pick(r, hosts);
        const thisShape =
          shape === 'mixed' ? pick(r, ['pairs', 'direct', 'client-only'] as const) : shape;
        const serverAttrs: Record<string, string> = r() < 0.5 ? { zone: pick(r, ['a', 'b']) } : {};
        if (thisShape === 'direct') {
          spans.push({
            traceId,
            spanId: hex(r, 16),
            parentSpanId: rootId,
            kind: serverKind(),
            service: 'kv',
            name: op,
            startNs: start,
            durationNs: dur,
            resource: resourceOf(h),
            attributes: serverAttrs,
          });
          continue;
        }
        const clientId = hex(r, 16);
        const clientAttrs: Record<string, string> =
          thisShape === 'client-only' && r() < 0.3
            ? { 'server.address': h }
            : { 'peer.service': 'kv', 'server.address': h };
        if (r() < 0.3) clientAttrs.zone = pick(r, ['a', 'c']);
        spans.push({
          traceId,
          spanId: clientId,
          parentSpanId: rootId,
          kind: clientKind(),
          service: 'front',
          name: op,
          startNs: start,
          durationNs: dur,
          resource: { 'service.name': 'front', 'host.name': 'front-1' },
          attributes: clientAttrs,
        });
        if (thisShape === 'pairs') {
          spans.push({
            traceId,
            spanId: hex(r, 16),
            parentSpanId: clientId,
            kind: serverKind(),
            service: 'kv',
            name: op,
            startNs: start + 50_000n,
            durationNs: dur > 100_000n ? dur - 100_000n : 0n,
            resource: resourceOf(h),
            attributes: serverAttrs,
          });
        }
      }
    }
    if (r() < 0.9) {
      spans.push({
        traceId,
        spanId: rootId,
        parentSpanId: '',
        kind: 'Server',
        service: 'front',
        name: 'GET /search',
        startNs: rootStart,
        durationNs: end - rootStart + 10_000n,
        resource: { 'service.name': 'front', 'host.name': 'front-1' },
        attributes: {},
      });
    }
  }
  for (const h of hosts) {
    for (let k = 0; k < requests / 25; k++) {
      const start = T0_NS + BigInt(Math.floor(r() * requests * 40e6));
      const durNs = BigInt(Math.floor((5 + r() * 60) * 1e6));
      spans.push({
        traceId: hex(r, 32),
        spanId: hex(r, 16),
        parentSpanId: '',
        kind: 'Internal',
        service: 'kv',
        name: 'activity',
        startNs: start,
        durationNs: durNs,
        resource: resourceOf(h),
        attributes: { 'background.activity': pick(r, ['gc', 'compaction', 'cron']) },
      });
    }
  }
  return spans;
}

/**
 * Ingests a tracegen scenario the way the OTLP receiver does: each batch encoded as OTLP
 * protobuf, decoded by the ingest decoder to Native columns, inserted in blocks of ~100k spans.
 */
export async function ingestScenario(
  store: Store,
  spec: ScenarioSpec,
  opts: { requests: number; seed: number; start: string },
): Promise<{ truth: ScenarioTruth; spans: number }> {
  const gen = createGenerator(spec, {
    requests: opts.requests,
    seed: opts.seed,
    start: opts.start,
  });
  let parts: Buffer[] = [];
  let pending = 0;
  let spans = 0;
  let block = 0;
  const flush = async (): Promise<void> => {
    if (parts.length === 0) return;
    await insertNative(store, {
      table: TRACES_TABLE,
      columns: TRACE_COLUMNS.map(([name]) => name),
      parts,
      dedupToken: `${spec.name}-${opts.seed}-${opts.start}-${block++}`,
      scratchPath: join(tmpdir(), `tailscope-truth-${process.pid}-${block}.native`),
    });
    parts = [];
    pending = 0;
  };
  for (const batch of gen.batches()) {
    const decoded = decodeTraceRequest(encodeOtlpProtobuf(batch));
    parts.push(...decoded.columns.tracesBlock());
    pending += decoded.accepted;
    spans += decoded.accepted;
    if (pending >= 100_000) await flush();
  }
  await flush();
  return { truth: gen.truth, spans };
}
