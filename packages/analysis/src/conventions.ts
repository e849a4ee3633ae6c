/**
 * The conventions a user sets (DESIGN.md, "Conventions a user sets"), in one place: the SQL
 * pushdown builds its expressions from these constants and the TypeScript reference
 * (`detectFanouts`) reads spans with them, so the two cannot drift apart.
 */

/** Resource attributes that name a call's host, first non-empty wins. */
export const HOST_KEYS = ['host.name', 'k8s.node.name', 'host.id', 'service.instance.id'] as const;
/** Host when none of HOST_KEYS (nor, for a CLIENT call without SERVER span, server.address) is set. */
export const UNKNOWN_HOST = 'unknown';
/** Resource attribute holding the host's sharing mode. */
export const SHARING_MODE_KEY = 'host.sharing_mode';
export const UNKNOWN_MODE = 'unknown';
/** Span attribute marking a background-activity span; its value is the activity kind. */
export const BACKGROUND_KEY = 'background.activity';
/** Background value of a call that overlaps no background span on its host. */
export const NO_BACKGROUND = 'none';
/** Value of `attr:KEY` for a call where neither span nor resource carries KEY. */
export const ABSENT_ATTRIBUTE = '(absent)';
/** CLIENT span attributes naming the callee when no SERVER span answers the call. */
export const PEER_SERVICE_KEY = 'peer.service';
export const SERVER_ADDRESS_KEY = 'server.address';

/** Both spellings of the span kinds that matter: the current exporter's and the older enum. */
export const SERVER_KINDS = ['Server', 'SPAN_KIND_SERVER'] as const;
export const CLIENT_KINDS = ['Client', 'SPAN_KIND_CLIENT'] as const;

/**
 * How far outside [from, to) spans are read so that fan-outs near the edges are whole: a
 * fan-out belongs to the range when its earliest call starts inside it, and its other calls,
 * SERVER children and parent are looked for within this margin. Nanoseconds (60 s).
 */
export const EDGE_SLACK_NS = 60_000_000_000n;
/** Background spans are read from this far before `from` (long backups, compactions). 1 h in ns. */
export const BACKGROUND_LOOKBACK_NS = 3_600_000_000_000n;

/** The straggler dimensions the API and attribution accept besides `attr:KEY`. */
export const BUILTIN_DIMENSIONS = ['host', 'sharing_mode', 'background'] as const;
export type BuiltinDimension = (typeof BUILTIN_DIMENSIONS)[number];
/** `host`, `sharing_mode`, `background` or `attr:KEY`. */
export type Dimension = BuiltinDimension | `attr:${string}`;

/**
 * Parses one dimension token; returns null when it is not a dimension (an empty `attr:` key
 * included). O(length).
 */
export function parseDimension(token: string): Dimension | null {
  if ((BUILTIN_DIMENSIONS as readonly string[]).includes(token)) return token as BuiltinDimension;
  if (token.startsWith('attr:') && token.length > 'attr:'.length) return token as Dimension;
  return null;
}

/** The attribute key of an `attr:KEY` dimension, else null. */
export function attributeKey(d: Dimension): string | null {
  return d.startsWith('attr:') ? d.slice('attr:'.length) : null;
}

/** The other span kinds, both spellings (calls, issue #12). */
export const PRODUCER_KINDS = ['Producer', 'SPAN_KIND_PRODUCER'] as const;
export const CONSUMER_KINDS = ['Consumer', 'SPAN_KIND_CONSUMER'] as const;
export const INTERNAL_KINDS = ['Internal', 'SPAN_KIND_INTERNAL'] as const;

/**
 * Client attributes (DESIGN.md "Definitions": Call). An INTERNAL span is a call when it carries
 * one of HTTP_METHOD_KEYS together with one of HTTP_TARGET_KEYS, or any of CALL_SYSTEM_KEYS, or
 * `peer.service` alone: that attribute names the remote service a span calls (HotROD's
 * simulated MySQL sends `peer.service=mysql` and nothing else; docs/analysis.md).
 */
export const HTTP_METHOD_KEYS = ['http.request.method', 'http.method'] as const;
export const HTTP_TARGET_KEYS = ['url.full', 'http.url', 'server.address', 'peer.service'] as const;
export const CALL_SYSTEM_KEYS = ['rpc.system', 'db.system', 'messaging.system'] as const;

/**
 * Wrapper hops walked from a call to its caller: a call's caller is its nearest ancestor that is
 * not a wrapper (an INTERNAL span with exactly one child and no client attributes); at most
 * this many wrappers are skipped (the span reached after them is the caller, whatever it is).
 * Each hop is one join in SQL; HotROD needs 1, Go's otelhttp handler plus one own span 2.
 */
export const MAX_WRAPPER_HOPS = 3;

/**
 * Send jitter, ns: calls on one edge of one request whose starts all lie within this of the
 * first start were sent at once; with concurrency >= 2 they are `parallel` even when a short
 * one ended before the last was sent (1 ms).
 */
export const SEND_JITTER_NS = 1_000_000n;
