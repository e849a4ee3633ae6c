/** Epoch milliseconds or ISO-8601, as the API's `from`/`to` take them; names the flag when bad. */
export function parseTime(name: string, raw: string): number {
  if (/^\d+(\.\d+)?$/.test(raw)) return Number(raw);
  const t = Date.parse(raw);
  if (Number.isNaN(t))
    throw new Error(`${name} must be epoch milliseconds or ISO-8601, got ${JSON.stringify(raw)}`);
  return t;
}
