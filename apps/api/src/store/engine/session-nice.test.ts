import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { niceOwnAutogroup, restoreOwnAutogroup, sessionOfStat } from './session-nice';

const dir = mkdtempSync(join(tmpdir(), 'tailscope-session-nice-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Files standing for /proc's: a stat line of `pid` in `session`, autogroups `enabled`. */
function fakeProc(pid: number, session: number, enabled: string) {
  const paths = {
    stat: join(dir, `stat-${pid}-${session}`),
    autogroup: join(dir, `autogroup-${pid}-${session}`),
    enabled: join(dir, `enabled-${pid}-${session}`),
  };
  writeFileSync(paths.stat, `${pid} (node (x) y) S 1 ${session} ${session} 0 -1 4194560 1 2 3\n`);
  writeFileSync(paths.autogroup, 'untouched');
  writeFileSync(paths.enabled, `${enabled}\n`);
  return paths;
}

describe('the autogroup nice of the server', () => {
  it('reads the session id after the command name, whatever it holds', () => {
    expect(sessionOfStat('42 (node) S 1 40 41 0 -1')).toBe(41);
    expect(sessionOfStat('42 (a) b (c) S 1 40 41 0 -1')).toBe(41);
    expect(sessionOfStat('garbage')).toBeNaN();
  });

  it('writes only the autogroup of a session the process leads', () => {
    const led = fakeProc(100, 100, '1');
    expect(niceOwnAutogroup(10, 100, led)).toEqual({ nice: 10, applied: true });
    expect(readFileSync(led.autogroup, 'utf8')).toBe('10');
    // Started from a shell: the group is the shell's, never written.
    const shell = fakeProc(101, 77, '1');
    expect(niceOwnAutogroup(10, 101, shell).skipped).toMatch(/not the leader/);
    expect(readFileSync(shell.autogroup, 'utf8')).toBe('untouched');
    const off = fakeProc(102, 102, '0');
    expect(niceOwnAutogroup(10, 102, off).skipped).toMatch(/off/);
    expect(readFileSync(off.autogroup, 'utf8')).toBe('untouched');
    expect(niceOwnAutogroup(0, 100, led).applied).toBe(false);
    restoreOwnAutogroup({ nice: 10, applied: false }, shell);
    expect(readFileSync(shell.autogroup, 'utf8')).toBe('untouched');
    restoreOwnAutogroup({ nice: 10, applied: true }, led);
    expect(readFileSync(led.autogroup, 'utf8')).toBe('0');
  });

  const autogroups =
    process.platform === 'linux' &&
    spawnSync('cat', ['/proc/sys/kernel/sched_autogroup_enabled'], {
      encoding: 'utf8',
    }).stdout.trim() === '1';
  it.runIf(autogroups)(
    'sets the nice of a session of its own, in a child started with setsid',
    () => {
      // A child in a new session (its own autogroup): the test's own group is never written.
      const mine = readFileSync('/proc/self/autogroup', 'utf8');
      const code = `import('${join(import.meta.dirname, 'session-nice.ts').replace(/'/g, "\\'")}')`;
      const r = spawnSync(
        'setsid',
        [
          process.execPath,
          '--import',
          'tsx',
          '-e',
          `${code}.then((m) => { const r = m.niceOwnAutogroup(7); console.log(JSON.stringify(r)); console.log(require('node:fs').readFileSync('/proc/self/autogroup', 'utf8')); })`,
        ],
        { encoding: 'utf8' },
      );
      expect(r.stderr).toBe('');
      const [result, group] = r.stdout.split('\n');
      expect(JSON.parse(result ?? '{}')).toEqual({ nice: 7, applied: true });
      expect(group).toMatch(/nice 7$/);
      expect(readFileSync('/proc/self/autogroup', 'utf8')).toBe(mine);
    },
  );
});
