/**
 * The text of an OTLP/HTTP error answer. Receivers answer a protobuf request with a protobuf
 * `google.rpc.Status` (code = field 1, message = field 2), so printing the raw bytes shows the
 * message's length byte and tag as stray characters ("3no OTLP endpoint"): decode it instead.
 */
export function statusText(contentType: string | null, body: Uint8Array): string {
  const media = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (media === 'application/x-protobuf' || media === 'application/protobuf') {
    const message = protobufStatusMessage(body);
    if (message !== null) return message;
  }
  const text = new TextDecoder().decode(body);
  if (media === 'application/json') {
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed === 'object' && parsed !== null && 'message' in parsed) {
        const { message } = parsed;
        if (typeof message === 'string') return message;
      }
    } catch {
      // Not JSON after all: print it as text below.
    }
  }
  return printable(text);
}

/** The message of a google.rpc.Status, or null when the bytes are not one. */
function protobufStatusMessage(body: Uint8Array): string | null {
  let pos = 0;
  let message: string | null = null;
  const varint = (): number | null => {
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const b = body[pos++];
      if (b === undefined) return null;
      value += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return value;
    }
    return null;
  };
  while (pos < body.length) {
    const key = varint();
    if (key === null) return null;
    const wire = key & 7;
    if (wire === 0) {
      if (varint() === null) return null;
    } else if (wire === 2) {
      const len = varint();
      if (len === null || pos + len > body.length) return null;
      if (key >>> 3 === 2) message = new TextDecoder().decode(body.subarray(pos, pos + len));
      pos += len;
    } else return null;
  }
  return message === null ? null : printable(message);
}

/** Control characters shown as spaces, so a binary body cannot garble a terminal. */
function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, ' ').trim();
}

/**
 * The traces endpoint of an OTLP/HTTP address. SDKs take a base URL
 * (`OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318`) and add `/v1/traces`; so does this when
 * the path is empty or `/`. Any other path is taken as given (a proxy may mount it elsewhere).
 */
export function otlpTracesUrl(url: URL): URL {
  if (url.pathname !== '' && url.pathname !== '/') return url;
  const out = new URL(url.href);
  out.pathname = '/v1/traces';
  return out;
}
