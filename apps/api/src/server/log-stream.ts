import { Writable } from 'node:stream';

/**
 * Fastify's structured (pino JSON) log lines, made readable for a person at a terminal:
 * `12:03:04.120 INFO  GET /api/v1/fanouts 200 12.3 ms` instead of a JSON object per request.
 * Used by `tailscope serve` when stdout is a terminal; piped or redirected, the JSON stays (for
 * log shippers). Lines that are not JSON pass through unchanged.
 */

const LEVELS: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO ',
  40: 'WARN ',
  50: 'ERROR',
  60: 'FATAL',
};

interface PinoLine {
  level?: number;
  time?: number;
  msg?: string;
  req?: { method?: string; url?: string };
  res?: { statusCode?: number };
  responseTime?: number;
  err?: { message?: string; stack?: string };
}

/** One pino JSON line as one short line of text (no trailing newline). */
export function prettyLogLine(line: string): string {
  let o: PinoLine;
  try {
    o = JSON.parse(line) as PinoLine;
  } catch {
    return line;
  }
  const time = new Date(o.time ?? Date.now()).toISOString().slice(11, 23);
  const level = LEVELS[o.level ?? 30] ?? String(o.level);
  const parts = [time, level];
  if (o.req) parts.push(o.req.method ?? '', o.req.url ?? '');
  if (o.res) parts.push(String(o.res.statusCode ?? ''));
  if (o.responseTime !== undefined) parts.push(`${o.responseTime.toFixed(1)} ms`);
  if (!o.req && !o.res) parts.push(o.msg ?? '');
  if (o.err?.message) parts.push(`: ${o.err.message}`);
  return parts.filter((p) => p !== '').join(' ');
}

/** A stream for Fastify's `logger.stream` that writes pretty lines to `out`. */
export function prettyLogStream(out: NodeJS.WritableStream = process.stdout): Writable {
  let pending = '';
  return new Writable({
    write(chunk: Buffer | string, _enc, done) {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const l of lines) if (l.trim() !== '') out.write(`${prettyLogLine(l)}\n`);
      done();
    },
  });
}
