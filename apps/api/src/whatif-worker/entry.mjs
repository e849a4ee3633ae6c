// Each worker thread of the analysis pool starts here: a plain ES module that loads the
// TypeScript task through tsx, as bin/tailscope.js loads the CLI, so the pool works the same
// under the CLI, under `tsx`, and under vitest (none of which pass their loader to workers).
import { tsImport } from 'tsx/esm/api';

const task = await tsImport('./worker.ts', {
  parentURL: import.meta.url,
  tsconfig: new URL('../../../../tsconfig.runtime.json', import.meta.url).pathname,
});

export default task.default;
