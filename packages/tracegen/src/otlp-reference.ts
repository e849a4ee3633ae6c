/**
 * An independent OTLP decoder for tests: protobufjs reading the message definitions of
 * opentelemetry-proto (collector/trace/v1, trace/v1, common/v1, resource/v1), restated here
 * field for field, so the encoder is checked against the proto and not against itself.
 */
import protobuf from 'protobufjs';

const OTLP_TRACE_PROTO = `
syntax = "proto3";
package opentelemetry.proto;

message AnyValue {
  oneof value {
    string string_value = 1;
    bool bool_value = 2;
    int64 int_value = 3;
    double double_value = 4;
    ArrayValue array_value = 5;
    KeyValueList kvlist_value = 6;
    bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message InstrumentationScope {
  string name = 1;
  string version = 2;
  repeated KeyValue attributes = 3;
  uint32 dropped_attributes_count = 4;
}
message Resource {
  repeated KeyValue attributes = 1;
  uint32 dropped_attributes_count = 2;
}
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans {
  Resource resource = 1;
  repeated ScopeSpans scope_spans = 2;
  string schema_url = 3;
}
message ScopeSpans {
  InstrumentationScope scope = 1;
  repeated Span spans = 2;
  string schema_url = 3;
}
message Span {
  bytes trace_id = 1;
  bytes span_id = 2;
  string trace_state = 3;
  bytes parent_span_id = 4;
  fixed32 flags = 16;
  string name = 5;
  enum SpanKind {
    SPAN_KIND_UNSPECIFIED = 0;
    SPAN_KIND_INTERNAL = 1;
    SPAN_KIND_SERVER = 2;
    SPAN_KIND_CLIENT = 3;
    SPAN_KIND_PRODUCER = 4;
    SPAN_KIND_CONSUMER = 5;
  }
  SpanKind kind = 6;
  fixed64 start_time_unix_nano = 7;
  fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9;
  uint32 dropped_attributes_count = 10;
  repeated Event events = 11;
  uint32 dropped_events_count = 12;
  repeated Link links = 13;
  uint32 dropped_links_count = 14;
  Status status = 15;
  message Event {
    fixed64 time_unix_nano = 1;
    string name = 2;
    repeated KeyValue attributes = 3;
    uint32 dropped_attributes_count = 4;
  }
  message Link {
    bytes trace_id = 1;
    bytes span_id = 2;
    string trace_state = 3;
    repeated KeyValue attributes = 4;
    uint32 dropped_attributes_count = 5;
    fixed32 flags = 6;
  }
}
message Status {
  reserved 1;
  string message = 2;
  enum StatusCode { STATUS_CODE_UNSET = 0; STATUS_CODE_OK = 1; STATUS_CODE_ERROR = 2; }
  StatusCode code = 3;
}
`;

const request = protobuf
  .parse(OTLP_TRACE_PROTO, { keepCase: false })
  .root.lookupType('opentelemetry.proto.ExportTraceServiceRequest');

/** A decoded span in OTLP/JSON's shape (hex ids, decimal int64 text). */
export interface ReferenceSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  flags: number;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Record<string, string>;
  resource: Record<string, string>;
  scope: { name: string; version: string };
}

interface Decoded {
  resourceSpans?: {
    resource?: { attributes?: KV[] };
    scopeSpans?: {
      scope?: { name?: string; version?: string };
      spans?: {
        traceId?: Uint8Array;
        spanId?: Uint8Array;
        parentSpanId?: Uint8Array;
        flags?: number;
        name?: string;
        kind?: number;
        startTimeUnixNano?: string;
        endTimeUnixNano?: string;
        attributes?: KV[];
      }[];
    }[];
  }[];
}
interface KV {
  key?: string;
  value?: { stringValue?: string; intValue?: string; boolValue?: boolean; doubleValue?: number };
}

const hexOf = (b: Uint8Array | undefined) => Buffer.from(b ?? []).toString('hex');

function attrs(list: KV[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const kv of list ?? [])
    out[kv.key ?? ''] = String(
      kv.value?.stringValue ?? kv.value?.intValue ?? kv.value?.boolValue ?? kv.value?.doubleValue,
    );
  return out;
}

/** Flattens an OTLP request (as protobufjs toObject or parsed OTLP/JSON gives it) to spans. */
function flattenRequest(d: Decoded, hexIds: boolean): ReferenceSpan[] {
  const spans: ReferenceSpan[] = [];
  for (const rs of d.resourceSpans ?? [])
    for (const ss of rs.scopeSpans ?? [])
      for (const s of ss.spans ?? [])
        spans.push({
          traceId: hexIds ? String(s.traceId) : hexOf(s.traceId),
          spanId: hexIds ? String(s.spanId) : hexOf(s.spanId),
          parentSpanId: hexIds ? String(s.parentSpanId ?? '') : hexOf(s.parentSpanId),
          flags: s.flags ?? 0,
          name: s.name ?? '',
          kind: s.kind ?? 0,
          startTimeUnixNano: String(s.startTimeUnixNano),
          endTimeUnixNano: String(s.endTimeUnixNano),
          attributes: attrs(s.attributes),
          resource: attrs(rs.resource?.attributes),
          scope: { name: ss.scope?.name ?? '', version: ss.scope?.version ?? '' },
        });
  return spans;
}

/** Decodes ExportTraceServiceRequest bytes with protobufjs. */
export function decodeProtobuf(bytes: Uint8Array): ReferenceSpan[] {
  const message = request.decode(bytes);
  const object = request.toObject(message, { longs: String, enums: Number, defaults: false });
  return flattenRequest(object, false);
}

/** Parses an OTLP/JSON body into the same shape. */
export function decodeJson(text: string): ReferenceSpan[] {
  return flattenRequest(JSON.parse(text) as Decoded, true);
}
