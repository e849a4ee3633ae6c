import { parentPort } from 'node:worker_threads';
import {
  ArenaMemory,
  buildStaticIndex,
  latencyQuantile,
  partHead,
  planCalls,
  poolPart,
  prepareRequestWhatIf,
  recordedRequestMs,
  replayPart,
  sortedAtRanges,
  sortedCopy,
  writePartCalls,
  type RequestPlan,
  type RequestTrees,
} from '@tailscope/analysis';
import type { ThreadReply, ThreadTask } from './request-thread-messages';

/**
 * One thread of the split whole-request replay: plans the parts it is given (keeping their
 * plans), writes their target calls into the shared merged columns, and replays them into the
 * shared outputs. The trees arrive once, on shared memory.
 */
let trees: RequestTrees | undefined;
const plans = new Map<number, RequestPlan>();
/** The pool parts' buffers, reused part after part (ArenaMemory). */
const memory = new ArenaMemory();
/**
 * Each planned part's buffers, reused by the same part of the next answer (its plan is dropped
 * once replayed): a plan then writes memory already mapped instead of ~30 MB of fresh pages.
 */
const partMemory = new Map<number, ArenaMemory>();

function handle(m: ThreadTask): ThreadReply {
  if (m.type === 'trees') {
    trees = m.trees;
    plans.clear();
    partMemory.clear();
    return { type: 'ok' };
  }
  if (!trees) throw new Error('no trees loaded');
  if (m.type === 'order') {
    if (m.ranges === 'all') m.out.set(sortedCopy(m.values));
    else sortedAtRanges(m.values, m.ranges, m.out);
    return { type: 'ok' };
  }
  if (m.type === 'index') return { type: 'index', index: buildStaticIndex(m.calls) };
  if (m.type === 'quantile') return { type: 'quantile', value: latencyQuantile(m.values, m.q) };
  if (m.type === 'pool') {
    const r = poolPart(trees, m.mask, m.range, m.workers, memory);
    return { type: 'pool', part: m.part, result: r };
  }
  if (m.type === 'plan') {
    let mem = partMemory.get(m.part);
    if (!mem) partMemory.set(m.part, (mem = new ArenaMemory()));
    const plan = prepareRequestWhatIf(trees, m.target, m.policy, m.range, mem).plan;
    plans.set(m.part, plan);
    // The calls are written later into the merged columns (a 'calls' task), not copied here.
    const head = partHead(plan, false);
    return {
      type: 'planned',
      part: m.part,
      head,
      blocks: plan.blocks.fanoutOffsets.length - 1,
      calls: m.calls ? planCalls(plan) : 0,
      overflow: plan.overflow,
    };
  }
  const plan = plans.get(m.part);
  if (!plan) throw new Error(`part ${String(m.part)} was not planned here`);
  if (m.type === 'calls') {
    writePartCalls(plan, m.merged, m.blockAt, m.callAt);
    m.recorded.set(recordedRequestMs(trees, plan.involved), m.involvedAt);
    return { type: 'ok' };
  }
  replayPart(plan, m.part, m.at, m.blockMs, m.replays, m.workers, m.reqAll, m.fanAll);
  plans.delete(m.part);
  return { type: 'replayed', part: m.part };
}

parentPort?.on('message', (m: ThreadTask) => {
  let reply: ThreadReply;
  try {
    reply = handle(m);
  } catch (err) {
    reply = { type: 'error', message: err instanceof Error ? err.message : String(err) };
  }
  // The part's arrays are its own (copies): moved, not copied again.
  const head =
    reply.type === 'planned' ? reply.head : reply.type === 'pool' ? reply.result.head : undefined;
  const moved = head
    ? [
        head.involved.buffer as ArrayBuffer,
        head.groupRecordedMs.buffer as ArrayBuffer,
        ...Object.values(head.blocks)
          .filter((v): v is Float64Array | Uint32Array => ArrayBuffer.isView(v))
          .map((v) => v.buffer as ArrayBuffer),
      ]
    : [];
  if (reply.type === 'index') {
    const ix = reply.index;
    moved.push(
      ...[ix.order, ix.startSorted, ix.callsBefore, ix.callAtPos, ix.buckets.first].map(
        (a) => a.buffer as ArrayBuffer,
      ),
    );
  }
  if (reply.type === 'pool')
    moved.push(
      reply.result.requestMs.buffer as ArrayBuffer,
      reply.result.fanoutMs.buffer as ArrayBuffer,
    );
  parentPort?.postMessage(reply, [...new Set(moved)]);
});
parentPort?.postMessage({ type: 'ok' } satisfies ThreadReply);
