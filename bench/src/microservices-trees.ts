// Request trees of the tracegen `microservices` preset for the what-if benchmark: a recording
// of `requests` requests (OTLP JSON, as a collector would receive it, read into span records
// and through requestTreesFromSpans), tiled `copies` times one after the other in time.
// Tiling keeps the benchmark's memory and set-up time bounded (span records cost ~1 kB each,
// 1 million requests ~ 60 million spans would not fit) while the replay sees 1 million requests
// with the preset's real structure (pool, parallel, sequential edges; its fault and skew).
import { requestTreesFromSpans, type RequestTrees, type SpanRecord } from '@tailscope/analysis';
import { createGenerator, encodeOtlpJson, presetSpec } from '@tailscope/tracegen';

const KIND = ['Unspecified', 'Internal', 'Server', 'Client', 'Producer', 'Consumer'];

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpAttr {
  key: string;
  value: OtlpValue;
}
interface OtlpJson {
  resourceSpans: {
    resource: { attributes: OtlpAttr[] };
    scopeSpans: {
      spans: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        startTimeUnixNano: string;
        endTimeUnixNano: string;
        attributes?: OtlpAttr[];
      }[];
    }[];
  }[];
}

const attrs = (list: readonly OtlpAttr[] = []): Record<string, string> =>
  Object.fromEntries(
    list.map((a) => [
      a.key,
      String(a.value.stringValue ?? a.value.intValue ?? a.value.doubleValue ?? a.value.boolValue),
    ]),
  );

/** Span records of `requests` requests of the preset (seed 1), read from its OTLP JSON. */
export function microservicesSpans(requests: number): SpanRecord[] {
  const gen = createGenerator(presetSpec('microservices'), { requests, seed: 1 });
  const out: SpanRecord[] = [];
  for (const batch of gen.batches()) {
    const body = JSON.parse(encodeOtlpJson(batch)) as OtlpJson;
    for (const rs of body.resourceSpans) {
      const resource = attrs(rs.resource.attributes);
      const service = resource['service.name'] ?? '';
      for (const ss of rs.scopeSpans)
        for (const s of ss.spans) {
          const startNs = BigInt(s.startTimeUnixNano);
          out.push({
            traceId: s.traceId,
            spanId: s.spanId,
            parentSpanId: s.parentSpanId ?? '',
            kind: KIND[s.kind] ?? 'Unspecified',
            service,
            name: s.name,
            startNs,
            durationNs: BigInt(s.endTimeUnixNano) - startNs,
            resource,
            attributes: attrs(s.attributes),
          });
        }
    }
  }
  return out;
}

/** `copies` copies of the trees, each copy's requests after the previous copy's last start. */
export function tileTrees(t: RequestTrees, copies: number): RequestTrees {
  const R = t.requestStartMs.length;
  const N = t.parent.length;
  let first = Infinity;
  let last = -Infinity;
  for (const s of t.requestStartMs) {
    first = Math.min(first, s);
    last = Math.max(last, s);
  }
  const period = last - first + (R > 1 ? (last - first) / (R - 1) : 1);
  const rep = <A extends Float64Array | Int32Array | Uint32Array | Uint8Array>(
    a: A,
    make: (n: number) => A,
  ): A => {
    const out = make(a.length * copies);
    for (let c = 0; c < copies; c++) out.set(a, c * a.length);
    return out;
  };
  const parent = new Int32Array(N * copies);
  const nodeOffsets = new Uint32Array(R * copies + 1);
  const requestStartMs = new Float64Array(R * copies);
  for (let c = 0; c < copies; c++) {
    for (let i = 0; i < N; i++) {
      const p = t.parent[i] ?? -1;
      parent[c * N + i] = p < 0 ? -1 : c * N + p;
    }
    for (let q = 0; q < R; q++) {
      nodeOffsets[c * R + q + 1] = c * N + (t.nodeOffsets[q + 1] ?? 0);
      requestStartMs[c * R + q] = (t.requestStartMs[q] ?? 0) + c * period;
    }
  }
  return {
    nodeOffsets,
    requestStartMs,
    // Shared strings: the replay never reads trace ids.
    traceIds: Array.from({ length: R * copies }, (_, q) => t.traceIds[q % R] ?? ''),
    parent,
    startMs: rep(t.startMs, (n) => new Float64Array(n)),
    durationMs: rep(t.durationMs, (n) => new Float64Array(n)),
    edge: rep(t.edge, (n) => new Int32Array(n)),
    host: rep(t.host, (n) => new Uint32Array(n)),
    mode: rep(t.mode, (n) => new Uint32Array(n)),
    structure: rep(t.structure, (n) => new Uint8Array(n)),
    concurrency: rep(t.concurrency, (n) => new Uint32Array(n)),
    edges: t.edges,
    hosts: t.hosts,
    modes: t.modes,
    // Each copy's requests keep their shapes (the same nodes, parents moved with them).
    ...(t.shape ? { shape: rep(t.shape, (n) => new Int32Array(n)) } : {}),
  };
}

/** The preset's trees: `recorded` requests read from OTLP, tiled to `requests`. */
export function microservicesTrees(
  requests: number,
  recorded: number,
): { trees: RequestTrees; recorded: RequestTrees } {
  const base = requestTreesFromSpans(microservicesSpans(recorded));
  return { trees: tileTrees(base, Math.ceil(requests / recorded)), recorded: base };
}
