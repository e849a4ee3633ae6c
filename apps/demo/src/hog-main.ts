/**
 * A CPU-bound neighbour, like Bobtail's ~85%-busy CPU-bound VMs: spins for `busyMs`, rests for
 * `idleMs`, again. Placed with `taskset` on the contended leaves' core, it holds the core for
 * most of the time their timers fire or their requests arrive; at a low priority (nice 19) a
 * leaf waits for the end of the burst, tens of ms, as Bobtail's I/O-bound VMs waited for the
 * scheduler's time slice. The rests keep the leaf's throughput, so its queue stays bounded.
 */
import { alignAutogroupNice, onStop, readChildConfig } from './child-ipc';

const config = readChildConfig('hog');
alignAutogroupNice();
const until = Date.now() + config.maxLifetimeMs;
let sink = 0;
let timer: NodeJS.Timeout | undefined;

function burst(): void {
  if (Date.now() > until) process.exit(0);
  const end = performance.now() + config.busyMs;
  while (performance.now() < end) sink += Math.sqrt(sink + 1);
  timer = setTimeout(burst, config.idleMs);
}

onStop(async () => {
  clearTimeout(timer);
  await Promise.resolve(sink);
}, 500);
burst();
