const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** Lower-case hex of `len` bytes of `bytes` from `offset` (OTLP/JSON's id form). */
export function hex(bytes: Uint8Array, offset: number, len: number): string {
  let s = '';
  for (let i = offset; i < offset + len; i++) s += HEX[bytes[i] ?? 0] ?? '00';
  return s;
}
