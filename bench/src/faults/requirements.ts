import { execFileSync, spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { resolve } from 'node:path';

/** Where the fault benchmark finds HotROD (v1.42.0): HOTROD_BIN, else where .ci/run builds it. */
export const hotrodPath = (): string =>
  process.env.HOTROD_BIN ??
  resolve(import.meta.dirname, '../../../node_modules/.cache/tailscope-bin/hotrod');

const onPath = (cmd: string): boolean =>
  spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;

/**
 * Why the fault benchmark cannot run here, or undefined when it can: Linux, root, `ip netns`,
 * `tc`, `taskset` and an executable hotrod.
 */
export function faultsSkipReason(): string | undefined {
  if (process.platform !== 'linux') return 'network namespaces need Linux';
  if (process.getuid?.() !== 0) return 'creating network namespaces needs root';
  for (const cmd of ['ip', 'tc', 'taskset']) if (!onPath(cmd)) return `\`${cmd}\` is not installed`;
  try {
    execFileSync('ip', ['netns', 'list'], { stdio: 'ignore' });
  } catch {
    return '`ip netns` does not work here';
  }
  try {
    accessSync(hotrodPath(), constants.X_OK);
  } catch {
    return `no hotrod binary at ${hotrodPath()} (HOTROD_BIN)`;
  }
  return undefined;
}
