import {
  DecodeError,
  WIRE_I32,
  WIRE_I64,
  WIRE_LEN,
  WIRE_VARINT,
  type ProtoReader,
} from './proto-reader';

/**
 * What one span may carry, and what happens past it (docs/ingest.md, "Limits"). As the
 * OpenTelemetry SDKs and the Collector do, extra attributes, events and links are dropped and
 * long string values truncated rather than the span refused; the counts come back in the
 * OTLP partial-success message. Times outside [1970, 2200) refuse the span.
 */
export interface IngestLimits {
  /** Attributes kept per span, resource, event and link (the rest are dropped). */
  maxAttributes: number;
  maxEventsPerSpan: number;
  maxLinksPerSpan: number;
  /** Encoded bytes of one attribute value: longer strings are cut, longer other values dropped. */
  maxValueBytes: number;
  /** A span may end this much before it starts (clock steps) and still be kept, with duration 0. */
  endBeforeStartToleranceNs: number;
}

/** The OpenTelemetry SDKs' default count limits (128), so a default SDK never meets them. */
export const DEFAULT_LIMITS: IngestLimits = {
  maxAttributes: 128,
  maxEventsPerSpan: 128,
  maxLinksPerSpan: 128,
  maxValueBytes: 64 * 1024,
  endBeforeStartToleranceNs: 1e9,
};

/** 2200-01-01T00:00:00Z in ns: spans starting at or after it are refused. */
export const MAX_TIME_NS = 7_258_118_400_000_000_000;

/** What the limits took away from one request. */
class Drops {
  attributes = 0;
  truncatedValues = 0;
  events = 0;
  links = 0;

  reset(): void {
    this.attributes = this.truncatedValues = this.events = this.links = 0;
  }

  /** The partial-success warning ('' when nothing was dropped). */
  message(limits: IngestLimits): string {
    const parts: string[] = [];
    if (this.attributes > 0)
      parts.push(
        `${this.attributes} attribute(s) dropped (limit ${limits.maxAttributes} per span, resource, event or link, or a non-string value over ${limits.maxValueBytes} bytes)`,
      );
    if (this.truncatedValues > 0)
      parts.push(
        `${this.truncatedValues} string value(s) truncated to ${limits.maxValueBytes} bytes`,
      );
    if (this.events > 0)
      parts.push(`${this.events} event(s) dropped (limit ${limits.maxEventsPerSpan} per span)`);
    if (this.links > 0)
      parts.push(`${this.links} link(s) dropped (limit ${limits.maxLinksPerSpan} per span)`);
    return parts.join('; ');
  }
}

/** The limits of the request being decoded and what they dropped (the decoder is synchronous). */
export const active = { limits: DEFAULT_LIMITS, drops: new Drops() };

/** Starts decoding one request under `limits` (nothing dropped yet); its bytes as a Buffer. */
export function beginRequest(input: Uint8Array, limits: IngestLimits): Buffer {
  active.limits = limits;
  active.drops.reset();
  return Buffer.isBuffer(input)
    ? input
    : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
}

/**
 * Wire types of the fields of each OTLP message Tailscope reads (index = field number; -1 =
 * unknown). A known field with another wire type is a 400 naming it, as docs/ingest.md says;
 * unknown fields are skipped, as protobuf requires.
 */
export interface MessageShape {
  name: string;
  fields: readonly (readonly [string, number] | undefined)[];
}

const V = WIRE_VARINT;
const L = WIRE_LEN;
export const REQUEST: MessageShape = {
  name: 'ExportTraceServiceRequest',
  fields: [undefined, ['resource_spans', L]],
};
export const RESOURCE_SPANS: MessageShape = {
  name: 'ResourceSpans',
  fields: [undefined, ['resource', L], ['scope_spans', L], ['schema_url', L]],
};
export const RESOURCE: MessageShape = {
  name: 'Resource',
  fields: [undefined, ['attributes', L], ['dropped_attributes_count', V]],
};
export const SCOPE_SPANS: MessageShape = {
  name: 'ScopeSpans',
  fields: [undefined, ['scope', L], ['spans', L], ['schema_url', L]],
};
export const SCOPE: MessageShape = {
  name: 'InstrumentationScope',
  fields: [
    undefined,
    ['name', L],
    ['version', L],
    ['attributes', L],
    ['dropped_attributes_count', V],
  ],
};
export const SPAN: MessageShape = {
  name: 'Span',
  fields: [
    undefined,
    ['trace_id', L],
    ['span_id', L],
    ['trace_state', L],
    ['parent_span_id', L],
    ['name', L],
    ['kind', V],
    ['start_time_unix_nano', WIRE_I64],
    ['end_time_unix_nano', WIRE_I64],
    ['attributes', L],
    ['dropped_attributes_count', V],
    ['events', L],
    ['dropped_events_count', V],
    ['links', L],
    ['dropped_links_count', V],
    ['status', L],
    ['flags', WIRE_I32],
  ],
};
export const EVENT: MessageShape = {
  name: 'Span.Event',
  fields: [
    undefined,
    ['time_unix_nano', WIRE_I64],
    ['name', L],
    ['attributes', L],
    ['dropped_attributes_count', V],
  ],
};
export const LINK: MessageShape = {
  name: 'Span.Link',
  fields: [
    undefined,
    ['trace_id', L],
    ['span_id', L],
    ['trace_state', L],
    ['attributes', L],
    ['dropped_attributes_count', V],
    ['flags', WIRE_I32],
  ],
};
export const STATUS_SHAPE: MessageShape = {
  name: 'Status',
  fields: [undefined, undefined, ['message', L], ['code', V]],
};
export const KEY_VALUE: MessageShape = {
  name: 'KeyValue',
  fields: [undefined, ['key', L], ['value', L]],
};

/** Skips a field the caller does not read, refusing a known field of the wrong wire type. */
export function skipChecked(r: ProtoReader, t: number, end: number, shape: MessageShape): void {
  const wire = t & 7;
  const known = shape.fields[t >>> 3];
  if (known && known[1] !== wire)
    throw new DecodeError(
      `${shape.name}.${known[0]} (field ${t >>> 3}) has wire type ${wire}, expected ${known[1]}`,
    );
  r.skip(wire, end);
}
