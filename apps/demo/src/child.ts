import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  CHILD_CONFIG_ENV,
  type ChildConfig,
  type ChildMessage,
  type SupervisorMessage,
} from './messages';

const DEMO_DIR = fileURLToPath(new URL('..', import.meta.url));

export interface SpawnOptions {
  name: string;
  /** File under src/, e.g. `leaf-main.ts`. */
  entry: string;
  config: ChildConfig;
  /** Placement: `taskset -c L nice -n N` (each execs the next, so the pid stays the child's). */
  prefix: string[];
  nodeFlags?: string[];
}

/**
 * A child process of the demo, in a session and process group of its own (detached): like a VM
 * or a container, each child is its own scheduling entity. With the kernel's autogroup
 * scheduling (sched_autogroup_enabled=1) CPU is shared between sessions first and a task's
 * `nice` only ranks it inside its session, so each child also gives its autogroup the niceness
 * it was started with (alignAutogroupNice). Stopping kills the whole group; a Ctrl-C on the
 * terminal reaches only the supervisor, which stops the children in order; and children exit
 * when the IPC channel closes, so a supervisor killed with SIGKILL leaves no orphans behind.
 */
export class DemoChild {
  readonly name: string;
  readonly proc: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private exitInfo: { code: number | null; signal: NodeJS.Signals | null } | null = null;

  constructor(opts: SpawnOptions) {
    this.name = opts.name;
    // TAILSCOPE_DEMO_NODE_FLAGS: extra node flags for every child, e.g. --cpu-prof (which
    // NODE_OPTIONS does not accept) to see where a leaf spends its CPU.
    const extra = (process.env.TAILSCOPE_DEMO_NODE_FLAGS ?? '').split(' ').filter(Boolean);
    const nodeArgs = [
      ...extra,
      ...(opts.nodeFlags ?? []),
      '--import',
      'tsx',
      fileURLToPath(new URL(`./${opts.entry}`, import.meta.url)),
    ];
    const [cmd, ...args] = [...opts.prefix, process.execPath, ...nodeArgs];
    this.proc = spawn(cmd ?? process.execPath, args, {
      cwd: DEMO_DIR,
      env: { ...process.env, [CHILD_CONFIG_ENV]: JSON.stringify(opts.config) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      detached: true,
    });
    this.exited = new Promise((resolve) => {
      this.proc.once('exit', (code, signal) => {
        this.exitInfo = { code, signal };
        resolve(this.exitInfo);
      });
    });
    // A spawn failure (e.g. no taskset) surfaces as an early exit in waitFor.
    this.proc.once('error', () => undefined);
  }

  get pid(): number {
    return this.proc.pid ?? -1;
  }

  send(msg: SupervisorMessage): void {
    if (this.proc.connected) this.proc.send(msg);
  }

  onMessage(fn: (msg: ChildMessage) => void): void {
    this.proc.on('message', (m) => {
      fn(m as ChildMessage);
    });
  }

  /** The first message of this type, or a rejection naming the child if it exits or times out. */
  waitFor<T extends ChildMessage['type']>(
    type: T,
    timeoutMs: number,
  ): Promise<Extract<ChildMessage, { type: T }>> {
    return new Promise((resolve, reject) => {
      const cleanup = () => {
        clearTimeout(timer);
        this.proc.off('message', on);
      };
      const on = (m: unknown) => {
        if ((m as ChildMessage).type !== type) return;
        cleanup();
        resolve(m as Extract<ChildMessage, { type: T }>);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`${this.name} did not report ${type} within ${String(timeoutMs)} ms`));
      }, timeoutMs);
      this.proc.on('message', on);
      void this.exited.then((info) => {
        cleanup();
        reject(
          new Error(
            `${this.name} exited (code ${String(info.code)}, signal ${String(info.signal)}) before ${type}`,
          ),
        );
      });
    });
  }

  /** Asks the child to stop, then escalates: SIGTERM, then SIGKILL, to its process group. */
  async stop(graceMs: number): Promise<void> {
    if (!this.exitInfo) {
      this.send({ type: 'stop' });
      if (!(await this.exitsWithin(graceMs))) {
        this.signalGroup('SIGTERM');
        if (!(await this.exitsWithin(1000))) this.signalGroup('SIGKILL');
        await this.exitsWithin(2000);
      }
    }
    // Anything the child left in its group (it starts nothing, but be sure).
    if (this.groupAlive()) this.signalGroup('SIGKILL');
  }

  /** True while any process of this child's process group is alive. */
  groupAlive(): boolean {
    if (this.pid <= 0) return false;
    try {
      process.kill(-this.pid, 0);
      return true;
    } catch {
      return false;
    }
  }

  signalGroup(signal: NodeJS.Signals): void {
    if (this.pid <= 0) return;
    try {
      process.kill(-this.pid, signal);
    } catch {
      // ESRCH: the group is gone already.
    }
  }

  private exitsWithin(ms: number): Promise<boolean> {
    if (this.exitInfo) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        resolve(false);
      }, ms);
      void this.exited.then(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }
}
