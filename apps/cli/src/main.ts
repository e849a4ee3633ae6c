import { buildCli } from './index';
import './commands';

// A failed command prints one line naming what is wrong (a busy port, a bad flag, an unreachable
// store) rather than a stack trace; TAILSCOPE_DEBUG=1 shows the stack too.
try {
  await buildCli().parseAsync(process.argv);
} catch (err) {
  const e = err instanceof Error ? err : new Error(String(err));
  console.error(`tailscope: ${e.message}`);
  if (process.env.TAILSCOPE_DEBUG) console.error(e.stack);
  process.exit(1);
}
