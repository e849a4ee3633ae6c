/** Protobuf wire-format pieces for the parts of a request that never change within a run. */

const utf8 = new TextEncoder();

export function varintSize(n: number): number {
  let size = 1;
  while (n >= 128) {
    n = Math.floor(n / 128);
    size++;
  }
  return size;
}

/** Writes a non-negative integer (< 2^53) as a varint; returns the new position. */
export function writeVarint(out: Uint8Array, pos: number, n: number): number {
  while (n >= 128) {
    out[pos++] = (n % 128) | 128;
    n = Math.floor(n / 128);
  }
  out[pos++] = n;
  return pos;
}

export function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let pos = 0;
  for (const p of parts) {
    out.set(p, pos);
    pos += p.length;
  }
  return out;
}

/** A length-delimited field: tag, length, bytes. */
export function lengthDelimited(field: number, body: Uint8Array): Uint8Array {
  const head = new Uint8Array(varintSize(field << 3) + varintSize(body.length));
  const p = writeVarint(head, 0, (field << 3) | 2);
  writeVarint(head, p, body.length);
  return concat([head, body]);
}

export function stringField(field: number, text: string): Uint8Array {
  return lengthDelimited(field, utf8.encode(text));
}

/** `KeyValue{key, value: AnyValue{string_value}}` as field `field` of its parent. */
export function stringAttribute(field: number, key: string, value: string): Uint8Array {
  return lengthDelimited(
    field,
    concat([stringField(1, key), lengthDelimited(2, stringField(1, value))]),
  );
}
