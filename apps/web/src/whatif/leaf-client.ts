// The page's side of the leaf worker: one worker for the app, promises per request, and
// "latest wins" for simulations so a fast slider never queues stale work.
import type { WhatIfPolicy } from '@tailscope/analysis';
import type { ExampleQuery, LeafCurves } from './dataset';
import type { LoadInfo, SimulateAnswer, WorkerAnswer, WorkerRequest } from './protocol';

type Pending = { resolve: (a: WorkerAnswer) => void };
type Body<T> = T extends unknown ? Omit<T, 'id'> : never;
type Ok = Extract<WorkerAnswer, { ok: true }>;

export class WorkerError extends Error {
  constructor(
    message: string,
    readonly field: string | undefined,
  ) {
    super(message);
    this.name = 'WorkerError';
  }
}

class LeafClient {
  private worker: Worker | null = null;
  private nextId = 1;
  private pending = new Map<number, Pending>();
  private loads = new Map<string, Promise<LoadInfo>>();

  private get w(): Worker {
    if (!this.worker) {
      this.worker = new Worker(new URL('./leaf-worker.ts', import.meta.url), { type: 'module' });
      this.worker.onmessage = (e: MessageEvent<WorkerAnswer>) => {
        const p = this.pending.get(e.data.id);
        this.pending.delete(e.data.id);
        p?.resolve(e.data);
      };
    }
    return this.worker;
  }

  private ask(body: Body<WorkerRequest>): Promise<Ok> {
    const id = this.nextId++;
    return new Promise<WorkerAnswer>((resolve) => {
      this.pending.set(id, { resolve });
      this.w.postMessage({ ...body, id });
    }).then((answer) => {
      if (!answer.ok) throw new WorkerError(answer.message, answer.field);
      return answer;
    });
  }

  /** Loads a dataset once per key; later calls share the first load. */
  load(key: string, url: string): Promise<LoadInfo> {
    let p = this.loads.get(key);
    if (!p) {
      p = this.ask({ type: 'load', key, url }).then((a) => {
        if (a.type !== 'load') throw new Error('worker answered out of turn');
        return a.info;
      });
      p.catch(() => this.loads.delete(key));
      this.loads.set(key, p);
    }
    return p;
  }

  async curves(key: string): Promise<LeafCurves> {
    const a = await this.ask({ type: 'curves', key });
    if (a.type !== 'curves') throw new Error('worker answered out of turn');
    return a.curves;
  }

  async simulate(
    key: string,
    policy: WhatIfPolicy,
    seed: number,
    bootstrapSamples: number,
    preview: boolean,
  ): Promise<SimulateAnswer> {
    const a = await this.ask({ type: 'simulate', key, policy, seed, bootstrapSamples, preview });
    if (a.type !== 'simulate') throw new Error('worker answered out of turn');
    return a.answer;
  }

  async example(key: string, query: ExampleQuery): Promise<string | null> {
    const a = await this.ask({ type: 'example', key, query });
    if (a.type !== 'example') throw new Error('worker answered out of turn');
    return a.traceId;
  }
}

export const leafClient = new LeafClient();
