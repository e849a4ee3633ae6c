// Each worker thread of the analysis pool starts here: a plain ES module that loads the
// TypeScript task through tsx, as bin/tailscope.js loads the CLI, so the pool works the same
// under the CLI, under `tsx`, and under vitest (none of which pass their loader to workers).
import { setPriority } from 'node:os';
import { tsImport } from 'tsx/esm/api';

// Analyses run below ingest (issue 24). On Linux a nice value is per thread, so priority 0
// (the calling thread) lowers this worker alone; the event loop serving OTLP keeps its own.
// Elsewhere (macOS: per process) it is left alone; where it is refused, normal priority.
if (process.platform === 'linux') {
  try {
    setPriority(0, 10);
  } catch {
    // not permitted here: normal priority
  }
}

const task = await tsImport('./worker.ts', {
  parentURL: import.meta.url,
  tsconfig: new URL('../../../../tsconfig.runtime.json', import.meta.url).pathname,
});

export default task.default;
