/**
 * The whole-request answer split into parts of the requests, planned and replayed on several
 * threads: the driver and its schedule (driver.ts) over an injected executor (executor.ts), the
 * tasks it hands out (tasks.ts) and the runner that does them on each thread (runner.ts). The
 * answer is the one-thread answer bit for bit, whatever the executor.
 */
export { SplitDriver } from './driver';
export type { SplitExecutor, SplitScratch } from './executor';
export { localExecutor } from './local-executor';
export { replyBuffers, SplitRunner } from './runner';
export type { SplitReply, SplitTask } from './tasks';
