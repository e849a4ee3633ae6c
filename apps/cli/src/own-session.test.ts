import { describe, expect, it } from 'vitest';
import { OWN_SESSION_ENV, stayReason } from './own-session';

/** /proc as a map: the autogroup switch and this process's stat line (session field 6). */
const proc =
  (enabled: string, session: number) =>
  (path: string): string => {
    if (path === '/proc/sys/kernel/sched_autogroup_enabled') return `${enabled}\n`;
    if (path === '/proc/self/stat') return `42 (node (demo)) S 1 42 ${session} 0 -1 4194560`;
    throw new Error(`no ${path}`);
  };

describe('where the demo runs', () => {
  const linux = { serves: true, platform: 'linux' as const, pid: 42 };

  it('starts itself again when its server would share the session that started it', () => {
    expect(stayReason({}, { ...linux, proc: proc('1', 7) })).toBeNull();
  });

  it('stays where it is when a session of its own would change nothing', () => {
    expect(stayReason({}, { ...linux, serves: false, proc: proc('1', 7) })).toMatch(/--otlp/);
    expect(stayReason({ [OWN_SESSION_ENV]: '1' }, { ...linux, proc: proc('1', 7) })).toMatch(
      /already/,
    );
    expect(stayReason({}, { ...linux, platform: 'darwin', proc: proc('1', 7) })).toMatch(/Linux/);
    expect(stayReason({ TAILSCOPE_ENGINE_NICE: '0' }, { ...linux, proc: proc('1', 7) })).toMatch(
      /TAILSCOPE_ENGINE_NICE=0/,
    );
    expect(stayReason({}, { ...linux, proc: proc('0', 7) })).toMatch(/off/);
    expect(stayReason({}, { ...linux, proc: proc('1', 42) })).toMatch(/leads its session/);
    expect(
      stayReason(
        {},
        {
          ...linux,
          proc: () => {
            throw new Error('no /proc');
          },
        },
      ),
    ).toMatch(/no autogroup information/);
  });

  it('refuses a bad TAILSCOPE_ENGINE_NICE with its name', () => {
    expect(() =>
      stayReason({ TAILSCOPE_ENGINE_NICE: 'x' }, { ...linux, proc: proc('1', 7) }),
    ).toThrow(/TAILSCOPE_ENGINE_NICE/);
  });
});
