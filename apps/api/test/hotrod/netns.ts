import { execFile, execFileSync, spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';

/**
 * A network namespace with only loopback, and processes run inside it. HotROD binds 0.0.0.0 with
 * no flag against it; inside such a namespace 0.0.0.0 reaches nothing but 127.0.0.1, so neither
 * it nor the load can touch a real network.
 */

const run = promisify(execFile);

export interface NsProcess {
  child: ChildProcessByStdio<null, Readable, Readable>;
  /** Everything written to stdout and stderr so far. */
  output: () => string;
  /** SIGTERM to the process group, SIGKILL after `graceMs`; resolves once it has exited. */
  stop: (graceMs?: number) => Promise<void>;
}

export class Netns {
  private readonly processes: NsProcess[] = [];
  private deleted = false;
  private readonly onExit = (): void => {
    this.deleteSync();
  };
  private readonly onSignal = (signal: NodeJS.Signals): void => {
    this.deleteSync();
    process.kill(process.pid, signal);
  };

  private constructor(readonly name: string) {
    // The last resort if the test process is stopped before afterAll: never leave a namespace
    // (and HotROD in it) behind. A SIGKILL is caught by the next run's sweep instead.
    process.once('exit', this.onExit);
    process.once('SIGTERM', this.onSignal);
    process.once('SIGINT', this.onSignal);
  }

  /** Creates `ts-<prefix>-<pid>-<random>` and brings its loopback up. */
  static async create(prefix: string): Promise<Netns> {
    Netns.sweep(prefix);
    const name = `ts-${prefix}-${String(process.pid)}-${Math.random().toString(36).slice(2, 8)}`;
    await run('ip', ['netns', 'add', name]);
    const ns = new Netns(name);
    try {
      await run('ip', ['netns', 'exec', name, 'ip', 'link', 'set', 'lo', 'up']);
    } catch (err) {
      await ns.delete();
      throw err;
    }
    return ns;
  }

  /** Starts `cmd args` inside the namespace as the leader of its own process group. */
  spawn(cmd: string, args: string[], env: NodeJS.ProcessEnv = {}, cwd?: string): NsProcess {
    const child = spawn('ip', ['netns', 'exec', this.name, cmd, ...args], {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
      cwd,
    });
    let out = '';
    const append = (chunk: Buffer): void => {
      out += chunk.toString();
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
      stop: async (graceMs = 5_000) => {
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

  /** Runs a command inside the namespace to completion and returns its stdout. */
  async exec(cmd: string, args: string[], timeoutMs = 60_000): Promise<string> {
    const { stdout } = await run('ip', ['netns', 'exec', this.name, cmd, ...args], {
      timeout: timeoutMs,
      maxBuffer: 256 * 1024 * 1024,
    });
    return stdout;
  }

  /** Stops every process started here, kills any stragglers in the namespace, deletes it. */
  async delete(): Promise<void> {
    await Promise.all(this.processes.map((p) => p.stop()));
    this.deleteSync();
  }

  /**
   * Deletes the namespaces of earlier runs whose test process is gone (killed before it could
   * clean up): named `ts-<prefix>-<pid>-...` with that pid no longer alive.
   */
  static sweep(prefix: string): void {
    let names: string[] = [];
    try {
      names = execFileSync('ip', ['netns', 'list']).toString().split('\n');
    } catch {
      return;
    }
    for (const line of names) {
      const m = new RegExp(`^(ts-${prefix}-(\\d+)-[a-z0-9]+)\\b`).exec(line);
      if (!m?.[1] || !m[2] || alive(Number(m[2]))) continue;
      deleteNamespace(m[1]);
    }
  }

  private deleteSync(): void {
    if (this.deleted) return;
    this.deleted = true;
    process.removeListener('exit', this.onExit);
    process.removeListener('SIGTERM', this.onSignal);
    process.removeListener('SIGINT', this.onSignal);
    deleteNamespace(this.name);
  }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Kills what runs inside the namespace (all of it started by this harness), then deletes it. */
function deleteNamespace(name: string): void {
  try {
    // Only processes inside this namespace, which this test created: all of them are ours.
    const pids = execFileSync('ip', ['netns', 'pids', name]).toString().split(/\s+/);
    for (const pid of pids.filter(Boolean)) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  } catch {
    // The namespace may already be gone.
  }
  try {
    execFileSync('ip', ['netns', 'delete', name], { stdio: 'ignore' });
  } catch {
    // Already deleted.
  }
}
