import type { Agent, RequestOptions } from 'node:http';
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

export class LeafClient {
  constructor(
    private readonly http: HttpModule,
    private readonly agent: Agent,
  ) {}

  /** Resolves with the latency (ms) once the whole answer arrived; rejects on error or abort. */
  call(ep: LeafEndpoint, query: number, marks: CallMarks, signal: AbortSignal): Promise<number> {
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
    return new Promise((resolve, reject) => {
      const req = this.http.request(options, (res) => {
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
  }
}
