/**
 * One runner of a split whole-request answer: the work behind each task (tasks.ts) and the
 * state a thread keeps between tasks (the trees, the plans of the parts it planned, its
 * reused memory). An executor keeps one runner per thread (worker_threads in apps/api, or
 * in this thread: local-executor.ts).
 */

import { buildStaticIndex } from '../../policies';
import { latencyQuantile, sortedAtRanges, sortedCopy } from '../../estimate';
import { ArenaMemory } from '../arena';
import { partHead, poolPart, prepareRequestWhatIf, replayPart } from '../answer';
import type { RequestPlan } from '../plan';
import { recordedRequestMs } from '../replay';
import type { RequestTrees } from '../trees';
import { planCalls, writePartCalls } from './part-calls';
import type { SplitReply, SplitTask } from './tasks';

export class SplitRunner {
  private trees: RequestTrees | undefined;
  private readonly plans = new Map<number, RequestPlan>();
  /** The pool parts' buffers, reused part after part (ArenaMemory). */
  private readonly memory = new ArenaMemory();
  /**
   * Each planned part's buffers, reused by the same part of the next answer (its plan is dropped
   * once replayed): a plan then writes memory already mapped instead of ~30 MB of fresh pages.
   */
  private readonly partMemory = new Map<number, ArenaMemory>();

  /** Runs one task; throws what the task throws (an executor turns it into an error reply). */
  handle(m: SplitTask): SplitReply {
    if (m.type === 'trees') {
      this.trees = m.trees;
      this.plans.clear();
      this.partMemory.clear();
      return { type: 'ok' };
    }
    const trees = this.trees;
    if (!trees) throw new Error('no trees loaded');
    if (m.type === 'order') {
      if (m.ranges === 'all') m.out.set(sortedCopy(m.values));
      else sortedAtRanges(m.values, m.ranges, m.out);
      return { type: 'ok' };
    }
    if (m.type === 'index') return { type: 'index', index: buildStaticIndex(m.calls) };
    if (m.type === 'quantile') return { type: 'quantile', value: latencyQuantile(m.values, m.q) };
    if (m.type === 'pool') {
      const r = poolPart(trees, m.mask, m.range, m.workers, this.memory);
      return { type: 'pool', part: m.part, result: r };
    }
    if (m.type === 'plan') {
      let mem = this.partMemory.get(m.part);
      if (!mem) this.partMemory.set(m.part, (mem = new ArenaMemory()));
      const plan = prepareRequestWhatIf(trees, m.target, m.policy, m.range, mem).plan;
      this.plans.set(m.part, plan);
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
    const plan = this.plans.get(m.part);
    if (!plan) throw new Error(`part ${String(m.part)} was not planned here`);
    if (m.type === 'calls') {
      writePartCalls(plan, m.merged, m.blockAt, m.callAt);
      m.recorded.set(recordedRequestMs(trees, plan.involved), m.involvedAt);
      return { type: 'ok' };
    }
    replayPart(plan, m.part, m.at, m.blockMs, m.replays, m.workers, m.reqAll, m.fanAll);
    this.plans.delete(m.part);
    return { type: 'replayed', part: m.part };
  }
}

/**
 * The buffers a reply owns alone (a part's head, a pool part's outputs, an index: copies made
 * for the reply), which a thread may move to the driver instead of copying them.
 */
export function replyBuffers(reply: SplitReply): ArrayBuffer[] {
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
  return [...new Set(moved)];
}
