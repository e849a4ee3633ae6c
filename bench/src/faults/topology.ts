import { execFile, execFileSync, spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';

/**
 * The fault benchmark's network (docs/incidents.md "Benchmark of real injected faults"): one
 * control namespace (Tailscope, the load, a bridge) and one namespace per HotROD service, each
 * joined to the bridge by a veth pair created inside the namespaces, so nothing here touches the
 * host's interfaces and no address leaves them. Everything it starts runs inside a namespace it
 * created; `destroy` (also on exit, SIGINT and SIGTERM) kills them and deletes the namespaces.
 */

const run = promisify(execFile);

/** The bridge's subnet inside the control namespace; service i gets SUBNET.(10 + i). */
export const SUBNET = '10.77.0';
export const CONTROL_ADDRESS = `${SUBNET}.1`;

export interface NsProcess {
  child: ChildProcessByStdio<null, Readable, Readable>;
  /** The last 64 KiB of stdout and stderr. */
  output: () => string;
  /** SIGTERM to the process group, SIGKILL after `graceMs`; resolves once it has exited. */
  stop: (graceMs?: number) => Promise<void>;
}

export interface Member {
  /** The service's name (also its namespace's suffix and its `host.name`). */
  name: string;
  ns: string;
  address: string;
  /** The veth end inside the member's namespace (netem goes on it). */
  device: string;
  /**
   * The other end: the bridge's port to the member, in the control namespace. Its egress queue
   * is the link into the member (the kernel faults of netfault.ts go on it).
   */
  port: string;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Kills every process inside a namespace (all started by this harness) and deletes it. */
function deleteNamespace(name: string): void {
  try {
    const pids = execFileSync('ip', ['netns', 'pids', name]).toString().split(/\s+/);
    for (const pid of pids.filter(Boolean))
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // Already gone.
      }
  } catch {
    // Already gone.
  }
  try {
    execFileSync('ip', ['netns', 'delete', name], { stdio: 'ignore' });
  } catch {
    // Already deleted.
  }
}

export class Topology {
  readonly control: string;
  readonly members = new Map<string, Member>();
  private readonly namespaces: string[] = [];
  private readonly processes: NsProcess[] = [];
  private destroyed = false;
  private readonly onExit = (): void => {
    this.destroySync();
  };
  private readonly onSignal = (signal: NodeJS.Signals): void => {
    this.destroySync();
    process.kill(process.pid, signal);
  };

  private constructor(readonly prefix: string) {
    this.control = `${prefix}-ctl`;
    process.once('exit', this.onExit);
    process.once('SIGINT', this.onSignal);
    process.once('SIGTERM', this.onSignal);
  }

  /**
   * Creates the control namespace with its bridge and one namespace per member, named
   * `ts-<tag>-<pid>-<name>`; namespaces of earlier runs whose process is gone are deleted first.
   */
  static async create(tag: string, names: readonly string[]): Promise<Topology> {
    Topology.sweep(tag);
    const t = new Topology(`ts-${tag}-${String(process.pid)}`);
    try {
      await t.addNamespace(t.control);
      const inCtl = (...args: string[]) => run('ip', ['-n', t.control, ...args]);
      await inCtl('link', 'add', 'br0', 'type', 'bridge');
      await inCtl('addr', 'add', `${CONTROL_ADDRESS}/24`, 'dev', 'br0');
      await inCtl('link', 'set', 'br0', 'up');
      for (const [i, name] of names.entries()) {
        const ns = `${t.prefix}-${name}`;
        await t.addNamespace(ns);
        const address = `${SUBNET}.${String(10 + i)}`;
        const outer = `v${String(i)}`;
        // Both ends are created inside our namespaces: the host's link list never sees them.
        await inCtl('link', 'add', outer, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns);
        await inCtl('link', 'set', outer, 'master', 'br0');
        await inCtl('link', 'set', outer, 'up');
        await run('ip', ['-n', ns, 'addr', 'add', `${address}/24`, 'dev', 'eth0']);
        await run('ip', ['-n', ns, 'link', 'set', 'eth0', 'up']);
        t.members.set(name, { name, ns, address, device: 'eth0', port: outer });
      }
    } catch (err) {
      t.destroySync();
      throw err;
    }
    return t;
  }

  member(name: string): Member {
    const m = this.members.get(name);
    if (!m) throw new Error(`no member ${name}`);
    return m;
  }

  private async addNamespace(ns: string): Promise<void> {
    await run('ip', ['netns', 'add', ns]);
    this.namespaces.push(ns);
    await run('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
  }

  /** Starts `cmd args` in namespace `ns` as the leader of its own process group. */
  spawn(ns: string, cmd: string, args: string[], env: NodeJS.ProcessEnv = {}): NsProcess {
    const child = spawn('ip', ['netns', 'exec', ns, cmd, ...args], {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    let out = '';
    const append = (chunk: Buffer): void => {
      out = (out + chunk.toString()).slice(-65_536);
    };
    child.stdout.on('data', append);
    child.stderr.on('data', append);
    const exited = new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else
        child.once('close', () => {
          resolve();
        });
    });
    const signal = (sig: NodeJS.Signals): void => {
      if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
      try {
        process.kill(-child.pid, sig);
      } catch {
        // Already gone.
      }
    };
    const proc: NsProcess = {
      child,
      output: () => out,
      stop: async (graceMs = 3_000) => {
        signal('SIGTERM');
        const timer = setTimeout(() => {
          signal('SIGKILL');
        }, graceMs);
        await exited;
        clearTimeout(timer);
      },
    };
    this.processes.push(proc);
    return proc;
  }

  /** Runs a command in namespace `ns` to completion; its stdout. */
  async exec(ns: string, cmd: string, args: string[], timeoutMs = 60_000): Promise<string> {
    const { stdout } = await run('ip', ['netns', 'exec', ns, cmd, ...args], {
      timeout: timeoutMs,
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout;
  }

  /** Stops every process started here, then kills what is left and deletes the namespaces. */
  async destroy(): Promise<void> {
    await Promise.all(this.processes.map((p) => p.stop()));
    this.destroySync();
  }

  private destroySync(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    process.removeListener('exit', this.onExit);
    process.removeListener('SIGINT', this.onSignal);
    process.removeListener('SIGTERM', this.onSignal);
    // Members first: deleting a member's namespace deletes its veth and the bridge port with it.
    for (const ns of [...this.namespaces].reverse()) deleteNamespace(ns);
  }

  /** Deletes namespaces `ts-<tag>-<pid>-*` of earlier runs whose process is gone. */
  static sweep(tag: string): void {
    let lines: string[] = [];
    try {
      lines = execFileSync('ip', ['netns', 'list']).toString().split('\n');
    } catch {
      return;
    }
    for (const line of lines) {
      const m = new RegExp(`^(ts-${tag}-(\\d+)-[a-z0-9-]+)\\b`).exec(line);
      if (!m?.[1] || !m[2] || alive(Number(m[2]))) continue;
      deleteNamespace(m[1]);
    }
  }
}
