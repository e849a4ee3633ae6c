import type { IncomingMessage } from 'node:http';
import { gunzip } from 'node:zlib';
import type { InflightBudget } from './inflight';
import { GrpcCode } from './otlp-response';

/**
 * Reading an OTLP/HTTP body under its limits: size (as sent and decompressed), the shared
 * in-flight budget, an idle timeout; and telling a client that went away from a failure.
 */

export class HttpFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

export function tooLarge(maxBytes: number, what: string): HttpFailure {
  return new HttpFailure(
    413,
    GrpcCode.RESOURCE_EXHAUSTED,
    `${what} is larger than the limit of ${maxBytes} bytes (TAILSCOPE_OTLP_MAX_BYTES)`,
  );
}

/** The client went away mid-request: nothing to answer, and not an error of ours. */
class ClientAbort extends Error {}

/** What one request holds of the in-flight budget; released once it has been answered. */
export class Hold {
  bytes = 0;
  constructor(readonly budget: InflightBudget) {}
  take(n: number): boolean {
    if (!this.budget.tryAcquire(n, this.bytes)) return false;
    this.bytes += n;
    return true;
  }
  release(): void {
    this.budget.release(this.bytes);
    this.bytes = 0;
  }
}

export function overBudget(budget: InflightBudget): HttpFailure {
  return new HttpFailure(
    429,
    GrpcCode.RESOURCE_EXHAUSTED,
    `too many bytes in flight (limit ${budget.maxBytes}, TAILSCOPE_OTLP_MAX_INFLIGHT_BYTES): retry later`,
    1,
  );
}

/**
 * Reads the body, refusing more than `maxBytes`; stops reading as soon as it is over. A body
 * whose length was not declared takes its in-flight share chunk by chunk; one that sends
 * nothing for `idleMs` is refused (408) rather than held.
 */
export function readBody(
  req: IncomingMessage,
  maxBytes: number,
  idleMs: number,
  hold: Hold | undefined,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    const fail = (err: Error) => {
      if (failed) return;
      failed = true;
      clearTimeout(timer);
      reject(err);
    };
    const idle = () => {
      fail(
        new HttpFailure(
          408,
          GrpcCode.UNAVAILABLE,
          `request body stalled: nothing received for ${idleMs} ms (TAILSCOPE_OTLP_BODY_IDLE_TIMEOUT_MS)`,
        ),
      );
    };
    const timer = setTimeout(idle, idleMs);
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      timer.refresh();
      size += chunk.length;
      if (size > maxBytes) {
        fail(tooLarge(maxBytes, 'request body'));
        return;
      }
      if (hold && !hold.take(chunk.length)) {
        fail(overBudget(hold.budget));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (failed) return;
      failed = true;
      clearTimeout(timer);
      resolve(chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks, size));
    });
    req.on('error', () => {
      fail(new ClientAbort('client aborted the request'));
    });
    req.on('close', () => {
      if (!req.complete) fail(new ClientAbort('client closed the connection mid-body'));
    });
  });
}

/** gunzip with an output cap: a gzip bomb stops at `maxBytes`, it is never inflated whole. */
export function gunzipLimited(body: Buffer, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    gunzip(body, { maxOutputLength: maxBytes }, (err, out) => {
      if (!err) resolve(out);
      else if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE')
        reject(tooLarge(maxBytes, 'decompressed request body'));
      else
        reject(
          new HttpFailure(400, GrpcCode.INVALID_ARGUMENT, `body is not valid gzip: ${err.message}`),
        );
    });
  });
}

/**
 * Reads the rest of a body already answered, throwing it away: up to `maxBytes`, with nothing
 * received for `idleMs` or for `totalMs` in all, then the socket is destroyed. Closing a socket
 * with the body unread makes the kernel send a reset, and a client still sending (most OTLP
 * exporters send the whole body before they read) would lose the answer it has not read yet,
 * and retry forever. Nothing read is kept, so this costs bandwidth, never memory.
 */
export function discardRest(
  req: IncomingMessage,
  limits: { maxBytes: number; idleMs: number; totalMs: number },
  then: () => void = () => undefined,
): void {
  if (req.complete) {
    then();
    return;
  }
  let size = 0;
  const stop = () => {
    clearTimeout(idle);
    clearTimeout(total);
    req.destroy();
  };
  const idle = setTimeout(stop, limits.idleMs);
  const total = setTimeout(stop, limits.totalMs);
  req.removeAllListeners('data');
  req.on('data', (chunk: Buffer) => {
    idle.refresh();
    size += chunk.length;
    if (size > limits.maxBytes) stop();
  });
  req.once('end', () => {
    clearTimeout(idle);
    clearTimeout(total);
    then();
  });
  req.once('close', () => {
    clearTimeout(idle);
    clearTimeout(total);
  });
  req.resume();
}

export function isClientAbort(err: unknown, req: IncomingMessage): boolean {
  return err instanceof ClientAbort || (req.destroyed && !req.complete);
}
