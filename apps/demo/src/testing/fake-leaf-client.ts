import type { CallMarks, LeafCall, LeafClient } from '../leaf-client';
import type { LeafEndpoint } from '../messages';

/**
 * A leaf client whose hosts answer after fixed delays (ms) or fail, and that records each call
 * and whether it was aborted (its signal) or cancelled (LeafCall.cancel).
 */
export function fakeClient(behaviour: Record<string, number | 'fail'>) {
  const calls: { host: string; marks: CallMarks; aborted: boolean }[] = [];
  const start = (
    target: LeafEndpoint,
    _q: number,
    marks: CallMarks,
    signal: AbortSignal,
  ): LeafCall => {
    const rec = { host: target.host, marks, aborted: false };
    calls.push(rec);
    const b = behaviour[target.host] ?? 1;
    let stop: (reason: Error) => void = () => undefined;
    const answer = new Promise<number>((resolve, reject) => {
      if (b === 'fail') {
        reject(new Error(`${target.host} failed`));
        return;
      }
      const t = setTimeout(() => {
        resolve(b);
      }, b);
      stop = (reason) => {
        clearTimeout(t);
        rec.aborted = true;
        reject(reason);
      };
      signal.addEventListener('abort', () => {
        stop(new Error('aborted'));
      });
    });
    return {
      answer,
      cancel: (reason) => {
        stop(reason);
      },
    };
  };
  const client = {
    start,
    call: (...args: Parameters<typeof start>) => start(...args).answer,
  } as unknown as LeafClient;
  return { client, calls };
}
