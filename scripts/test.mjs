// `npm test`: Vitest over every project, leaving out the long tier (scripts/long-tests.txt) so
// CI stays within its 15 minutes; `npm run test:full` (TAILSCOPE_FULL_TESTS=1) runs everything.
// Arguments go to Vitest; naming files runs exactly those, long or not.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export function longTests() {
  return readFileSync(new URL('./long-tests.txt', import.meta.url), 'utf8')
    .split('\n')
    .map((l) => l.replace(/#.*$/, '').trim())
    .filter(Boolean);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const named = args.some((a) => !a.startsWith('-'));
  const full = process.env.TAILSCOPE_FULL_TESTS === '1' || named;
  const long = full ? [] : longTests();
  const exclude = long.flatMap((f) => ['--exclude', `**/${f}`]);
  if (!full) console.log(`npm test: ${long.length} long test files left to npm run test:full`);
  // The suite's small stores must show their newest spans at once: keep only answers of a second
  // or more as live answers (the server's default, 250 ms, is met by a busy CI's small answers).
  // No warm answers either: a test's server answers what the test asks, nothing in the background
  // (warm-answers.int and the browser test warm-answers turn them on).
  const env = { TAILSCOPE_LIVE_ANSWER_MIN_MS: '1000', TAILSCOPE_WARM_S: '0', ...process.env };
  const r = spawnSync('vitest', ['run', ...exclude, ...args], {
    stdio: 'inherit',
    shell: false,
    env,
  });
  process.exit(r.status ?? 1);
}
