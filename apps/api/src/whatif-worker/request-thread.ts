import { parentPort } from 'node:worker_threads';
import { replyBuffers, SplitRunner, type SplitReply, type SplitTask } from '@tailscope/analysis';

/**
 * One worker thread of the split whole-request replay (request-threads.ts): the analysis'
 * SplitRunner does each task (it keeps the trees, the parts it planned and its memory); this
 * file only carries the messages, moving the reply's own buffers instead of copying them.
 */
const runner = new SplitRunner();

parentPort?.on('message', (m: SplitTask) => {
  let reply: SplitReply;
  try {
    reply = runner.handle(m);
  } catch (err) {
    reply = { type: 'error', message: err instanceof Error ? err.message : String(err) };
  }
  parentPort?.postMessage(reply, replyBuffers(reply));
});
parentPort?.postMessage({ type: 'ok' } satisfies SplitReply);
