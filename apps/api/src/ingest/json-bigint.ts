/**
 * OTLP/JSON allows 64-bit integers as JSON numbers, and JSON.parse rounds those above 2^53
 * (1544712660123456789 becomes ...768). Before parsing, integer literals of 16 or more digits
 * outside strings are turned into strings, which every int64 field accepts as well, so they
 * stay exact. decode-json.ts calls this only for a body whose first 4 kB hold such a literal, or
 * where an int64 field held a number JSON.parse could not represent exactly, so other bodies
 * never pay for the scan.
 */

/** An integer literal right after `:`, `[` or `,` with at least 16 digits. */
const MAYBE_BIG = /[:[,]\s*-?\d{16}/;

/** Whether the start of a body (where the first span's times are) holds such a literal. */
export function startsWithBigIntegers(text: string): boolean {
  return MAYBE_BIG.test(text.length > 4096 ? text.slice(0, 4096) : text);
}

export function quoteBigIntegers(text: string): string {
  const out: string[] = [];
  let from = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      // Skip the string: jump to each next quote (native search) and check it is not escaped.
      let q = text.indexOf('"', i + 1);
      for (;;) {
        if (q < 0) return text; // unterminated: JSON.parse will say so
        let backslashes = 0;
        for (let k = q - 1; text.charCodeAt(k) === 92 /* \ */; k--) backslashes++;
        if (backslashes % 2 === 0) break;
        q = text.indexOf('"', q + 1);
      }
      i = q + 1;
      continue;
    }
    if (c === 45 /* - */ || (c >= 48 && c <= 57)) {
      const start = i;
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d < 48 || d > 57) break;
        i++;
      }
      const next = i < n ? text.charCodeAt(i) : 0;
      // A fraction or exponent makes it a double: leave it to JSON.parse.
      const isInteger = next !== 46 /* . */ && next !== 101 && next !== 69; /* e E */
      const digits = i - start - (c === 45 ? 1 : 0);
      if (isInteger && digits >= 16) {
        out.push(text.slice(from, start), '"', text.slice(start, i), '"');
        from = i;
      }
      continue;
    }
    i++;
  }
  if (from === 0) return text;
  out.push(text.slice(from));
  return out.join('');
}
