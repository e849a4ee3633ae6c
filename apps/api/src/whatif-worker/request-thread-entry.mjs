// Each thread of the split whole-request replay (request-threads.ts) starts here: a plain ES
// module that loads the TypeScript through tsx, as entry.mjs does for the analysis pool.
import { tsImport } from 'tsx/esm/api';

await tsImport('./request-thread.ts', {
  parentURL: import.meta.url,
  tsconfig: new URL('../../../../tsconfig.runtime.json', import.meta.url).pathname,
});
