import { readlink } from 'node:fs/promises';
import { setPriority } from 'node:os';

/**
 * The embedded engine runs each query on a thread of libuv's pool (chDB's `queryAsync`), and the
 * engine's own pipeline threads are started from there. Those threads were at the server's
 * priority, the same as the services Tailscope watches on a shared machine: opening three
 * dashboard pages beside `tailscope demo` on 2 cores took 9.3 s of CPU on the four pool threads
 * (1.1 s on the main thread) and pushed the cluster's p99 from ~40 ms to 280-590 ms.
 * `os_thread_priority` lowers only a query's pipeline threads, and only for analyses.
 *
 * So the pool's threads run at a lower priority (nice TAILSCOPE_ENGINE_NICE, default 10): what
 * Tailscope computes yields to the machine's other work, and the engine turns (engine-turns.ts)
 * still give ingest's inserts the next turn over analyses. OTLP decoding and acknowledgement
 * stay on the main thread at the server's priority. On Linux, setpriority(PRIO_PROCESS, tid)
 * sets one thread's nice value; threads those threads start inherit it.
 */

export const ENGINE_NICE_ENV = 'TAILSCOPE_ENGINE_NICE';
export const DEFAULT_ENGINE_NICE = 10;

/** TAILSCOPE_ENGINE_NICE: 0 (off) to 19; a clear error naming the variable otherwise. */
export function engineNiceFromEnv(env: NodeJS.ProcessEnv): number {
  const raw = env[ENGINE_NICE_ENV];
  if (raw === undefined || raw === '') return DEFAULT_ENGINE_NICE;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 19)
    throw new Error(
      `${ENGINE_NICE_ENV} must be an integer between 0 and 19, got ${JSON.stringify(raw)}`,
    );
  return n;
}

/**
 * The thread ids of libuv's pool: `/proc/thread-self` read through the pool names the thread
 * that reads it. Reads in batches until every thread of the pool (UV_THREADPOOL_SIZE, default 4)
 * has answered or `rounds` batches found no more.
 */
export async function poolThreadIds(rounds = 16): Promise<number[]> {
  const size = Number(process.env.UV_THREADPOOL_SIZE ?? 4) || 4;
  const seen = new Set<number>();
  for (let i = 0; i < rounds && seen.size < size; i++) {
    const links = await Promise.all(
      Array.from({ length: size * 4 }, () => readlink('/proc/thread-self').catch(() => '')),
    );
    for (const link of links) {
      const tid = /\/task\/(\d+)$/.exec(link)?.[1];
      if (tid !== undefined) seen.add(Number(tid));
    }
  }
  seen.delete(process.pid);
  return [...seen].sort((a, b) => a - b);
}

export interface EngineNice {
  nice: number;
  /** The pool threads set to it. */
  threads: number[];
  /** Why nothing was set, when nothing was. */
  skipped?: string;
}

/** Sets the pool's threads to `nice` (Linux only; elsewhere, or at 0, says why it did not). */
export async function niceEngineThreads(nice: number): Promise<EngineNice> {
  if (nice === 0) return { nice, threads: [], skipped: `${ENGINE_NICE_ENV}=0` };
  if (process.platform !== 'linux')
    return { nice, threads: [], skipped: 'per-thread priority is Linux only' };
  const threads = await poolThreadIds();
  const set: number[] = [];
  for (const tid of threads) {
    try {
      setPriority(tid, nice);
      set.push(tid);
    } catch {
      // A thread that exited, or a priority the process may not take: leave it.
    }
  }
  return set.length > 0
    ? { nice, threads: set }
    : { nice, threads: [], skipped: 'no thread of the pool could be found or set' };
}
