// Where to send traces, as the server says it listens (GET /api/v1/stats `listen`), so the
// dashboard never shows a default port the server is not on.
import type { Stats } from '../api/contracts';

const WILDCARDS = new Set(['', '0.0.0.0', '::', '[::]']);

/** `scheme://host:port` or `host:port` with a wildcard host replaced by the page's host. */
function reachable(addr: string, pageHost: string): string {
  const m = /^([a-z]+:\/\/)?(.*):(\d+)$/.exec(addr);
  if (!m) return addr;
  const [, scheme = '', host = '', port = ''] = m;
  return `${scheme}${WILDCARDS.has(host) ? pageHost : host}:${port}`;
}

export interface OtlpAddresses {
  /** Full OTLP/HTTP traces URL. */
  http: string;
  grpc: string;
}

/** The OTLP addresses to show, or null when the server does not say (an older server). */
export function otlpAddresses(listen: Stats['listen'], pageHost: string): OtlpAddresses | null {
  if (!listen) return null;
  return {
    http: `${reachable(listen.otlpHttp, pageHost)}/v1/traces`,
    grpc: reachable(listen.otlpGrpc, pageHost),
  };
}
