/**
 * The load bench:ingest sends, shared by every phase that is measured against another, so the
 * Tailscope server and the OpenTelemetry Collector get the same requests, in the same order,
 * over the same number of keep-alive connections for the same time.
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';

export interface LoadOptions {
  connections: number;
  seconds: number;
  spansPerRequest: number;
}

export interface LoadResult {
  /** Spans in requests answered 200. */
  acked: number;
  /** Requests answered 429 or 503 (each followed by a 50 ms pause on that connection). */
  refused: number;
  /** Seconds from the first request to the last answer. */
  sendS: number;
}

export function post(agent: Agent, url: string, body: Buffer): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/x-protobuf', 'content-length': body.length },
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          resolvePromise(res.statusCode ?? 0);
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** CPU seconds (user + system, all threads) a process has used, from /proc (Linux). */
export function cpuSeconds(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/** Sends `bodies` round-robin to `url` over `connections` keep-alive connections for `seconds`. */
export async function drive(url: string, bodies: Buffer[], opts: LoadOptions): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: opts.connections });
  try {
    let acked = 0;
    let refused = 0;
    let next = 0;
    const t0 = performance.now();
    const deadline = t0 + opts.seconds * 1000;
    const worker = async () => {
      while (performance.now() < deadline) {
        const body = bodies[next++ % bodies.length] ?? Buffer.alloc(0);
        const status = await post(agent, url, body);
        if (status === 200) acked += opts.spansPerRequest;
        else if (status === 429 || status === 503) {
          refused++;
          await new Promise((r) => setTimeout(r, 50));
        } else throw new Error(`unexpected status ${status} from ${url}`);
      }
    };
    await Promise.all(Array.from({ length: opts.connections }, worker));
    return { acked, refused, sendS: (performance.now() - t0) / 1000 };
  } finally {
    agent.destroy();
  }
}
