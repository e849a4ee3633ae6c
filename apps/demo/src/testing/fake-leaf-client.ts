import type { CallMarks, LeafClient } from '../leaf-client';
import type { LeafEndpoint } from '../messages';

/** A leaf client whose hosts answer after fixed delays (or fail), and that records aborts. */
export function fakeClient(behaviour: Record<string, number | 'fail'>) {
  const calls: { host: string; marks: CallMarks; aborted: boolean }[] = [];
  const client = {
    call(target: LeafEndpoint, _q: number, marks: CallMarks, signal: AbortSignal) {
      const rec = { host: target.host, marks, aborted: false };
      calls.push(rec);
      const b = behaviour[target.host] ?? 1;
      return new Promise<number>((resolve, reject) => {
        if (b === 'fail') {
          reject(new Error(`${target.host} failed`));
          return;
        }
        const t = setTimeout(() => {
          resolve(b);
        }, b);
        signal.addEventListener('abort', () => {
          clearTimeout(t);
          rec.aborted = true;
          reject(new Error('aborted'));
        });
      });
    },
  } as unknown as LeafClient;
  return { client, calls };
}
