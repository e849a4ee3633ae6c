// CPU and wall time of one step, for the what-if benchmarks. CPU time is this process's (user +
// system, every thread of it): on a shared machine wall time also counts waiting for a core.

export interface Timing {
  cpu: number;
  wall: number;
}

/** Runs `f` and returns its result with the time it took, ms. */
export function timed<T>(f: () => T): [T, Timing] {
  const c = process.cpuUsage();
  const a = performance.now();
  const r = f();
  const wall = performance.now() - a;
  const d = process.cpuUsage(c);
  return [r, { cpu: (d.user + d.system) / 1000, wall }];
}

/** timed for a promise: the time until it settles. */
export async function timedAsync<T>(f: () => T | Promise<T>): Promise<[T, Timing]> {
  const c = process.cpuUsage();
  const a = performance.now();
  const r = await f();
  const wall = performance.now() - a;
  const d = process.cpuUsage(c);
  return [r, { cpu: (d.user + d.system) / 1000, wall }];
}
