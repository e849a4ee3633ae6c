import type { Agent, ClientRequest, RequestOptions } from 'node:http';
import type { LookupFunction } from 'node:net';
import { MARK_HEADERS } from './telemetry';
import type { Arm, LeafEndpoint } from './messages';

/**
 * Calls to leaves. Each call names the virtual host as its hostname (so the CLIENT span's
 * `server.address` and the Host header say `host-07`), and a lookup function resolves every
 * virtual host to the loopback address: the demo's hosts are names, its wire is 127.0.0.1.
 */
const loopback: LookupFunction = (_hostname, options, callback) => {
  if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
  else callback(null, '127.0.0.1', 4);
};

export interface CallMarks {
  shard: number;
  hedge?: 'primary' | 'backup';
  shadow?: boolean;
  /** The fan-out's group when the root splits its traffic (RootConfig.controlFraction). */
  arm?: Arm | undefined;
}

export type HttpModule = typeof import('node:http');

/** A call in flight: its answer, and a way to give up on it alone. */
export interface LeafCall {
  /** The latency (ms) once the whole answer arrived; rejects on error, abort or cancel. */
  answer: Promise<number>;
  /** Destroys the request (on HTTP/1.1 its connection closes); the answer rejects with reason. */
  cancel(reason: Error): void;
}

export class LeafClient {
  constructor(
    private readonly http: HttpModule,
    private readonly agent: Agent,
  ) {}

  /** Resolves with the latency (ms) once the whole answer arrived; rejects on error or abort. */
  call(ep: LeafEndpoint, query: number, marks: CallMarks, signal: AbortSignal): Promise<number> {
    return this.start(ep, query, marks, signal).answer;
  }

  /**
   * A call that can be cancelled on its own, without an AbortController of its own: the hedged
   * path starts two of these per hedged call, and an AbortController per copy (an EventTarget,
   * plus a listener on the fan-out's deadline) measured 0.1-0.2 ms slower per call at the
   * median on the demo's root, all of it root CPU the replay does not model.
   */
  start(ep: LeafEndpoint, query: number, marks: CallMarks, signal: AbortSignal): LeafCall {
    const headers: Record<string, string> = { [MARK_HEADERS.shard]: String(marks.shard) };
    if (marks.hedge) headers[MARK_HEADERS.hedge] = marks.hedge;
    if (marks.shadow) headers[MARK_HEADERS.shadow] = 'true';
    if (marks.arm) headers[MARK_HEADERS.arm] = marks.arm;
    const options: RequestOptions = {
      hostname: ep.host,
      port: ep.port,
      path: `/shard?q=${String(query)}`,
      agent: this.agent,
      lookup: loopback,
      headers,
      signal,
    };
    const start = performance.now();
    let req: ClientRequest | undefined;
    const answer = new Promise<number>((resolve, reject) => {
      req = this.http.request(options, (res) => {
        res.resume();
        res.once('end', () => {
          if (res.statusCode === 200) resolve(performance.now() - start);
          else reject(new Error(`${ep.host} answered ${String(res.statusCode)}`));
        });
        res.once('error', reject);
      });
      req.once('error', reject);
      req.end();
    });
    return {
      answer,
      cancel: (reason) => {
        req?.destroy(reason);
      },
    };
  }
}
