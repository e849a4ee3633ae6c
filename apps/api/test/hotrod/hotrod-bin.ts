import { execFileSync, spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * Finding (or building) Jaeger's HotROD demo for the real-client tests, and saying why those
 * tests cannot run on a machine that lacks what they need.
 */

export const HOTROD_MODULE = 'github.com/jaegertracing/jaeger/examples/hotrod@v1.42.0';

/** Where .ci/run installs it, and where a build by this module lands. */
export const HOTROD_CACHE_DIR = resolve(
  import.meta.dirname,
  '../../../../node_modules/.cache/tailscope-bin',
);

const executable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

const onPath = (cmd: string): boolean =>
  spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;

/** HOTROD_BIN, else $GOBIN, $GOPATH/bin (~/go/bin) and the cache directory, in that order. */
export function findHotrod(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.HOTROD_BIN) return executable(env.HOTROD_BIN) ? env.HOTROD_BIN : undefined;
  const dirs = [
    env.GOBIN,
    env.GOPATH ? join(env.GOPATH, 'bin') : undefined,
    join(homedir(), 'go', 'bin'),
    HOTROD_CACHE_DIR,
  ];
  for (const dir of dirs) {
    if (dir && executable(join(dir, 'hotrod'))) return join(dir, 'hotrod');
  }
  return undefined;
}

/**
 * The command prefix that runs HotROD at real-time round-robin priority (`chrt -r 50`), or none.
 * HotROD's services only sleep (route N(50, 12.5) ms, MySQL N(300, 30) ms under its mutex), so
 * a call's recorded time is the sleep plus however long the machine kept the process waiting
 * for a core. On a 2-core machine running other tests, that wait stalled route calls to
 * 150-340 ms in one phase and not the other, and the what-if p99 ground truth compared two
 * machines' states instead of two pool sizes (docs/whatif.md, HotROD). At real-time priority
 * HotROD is served before every ordinary process, as it would be on a machine of its own;
 * the kernel still keeps 5% of each second for the others (sched_rt_runtime_us). Needs root
 * (the tests already do) and `chrt`; HOTROD_REALTIME=0 turns it off.
 */
export function realtimePrefix(env: NodeJS.ProcessEnv = process.env): string[] {
  if (env.HOTROD_REALTIME === '0' || !onPath('chrt')) return [];
  const works = spawnSync('chrt', ['-r', '50', 'true'], { stdio: 'ignore' }).status === 0;
  return works ? ['chrt', '-r', '50'] : [];
}

/** `go install` into the cache directory (about a minute from a cold module cache). */
export function buildHotrod(): string | undefined {
  if (!onPath('go')) return undefined;
  const built = spawnSync('go', ['install', HOTROD_MODULE], {
    env: { ...process.env, GOBIN: HOTROD_CACHE_DIR },
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: 300_000,
  });
  const bin = join(HOTROD_CACHE_DIR, 'hotrod');
  return built.status === 0 && executable(bin) ? bin : undefined;
}

/**
 * Why the HotROD tests cannot run here, or undefined when they can: they need Linux, root (to
 * create a network namespace), `ip netns` and either the hotrod binary or `go` to build it.
 */
export function hotrodSkipReason(): string | undefined {
  if (process.platform !== 'linux') return 'network namespaces need Linux';
  if (process.getuid?.() !== 0) return 'creating a network namespace needs root';
  if (!onPath('ip')) return '`ip` (iproute2) is not installed';
  try {
    execFileSync('ip', ['netns', 'list'], { stdio: 'ignore' });
  } catch {
    return '`ip netns` does not work here';
  }
  const pinned = process.env.HOTROD_BIN;
  if (pinned && !executable(pinned)) return `HOTROD_BIN (${pinned}) is not an executable`;
  if (!findHotrod() && !onPath('go'))
    return `no hotrod binary (HOTROD_BIN, $GOBIN, ~/go/bin, ${HOTROD_CACHE_DIR}) and no \`go\` to build it`;
  return undefined;
}
