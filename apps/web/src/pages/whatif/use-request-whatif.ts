import type { WhatIfPolicy } from '@tailscope/analysis';
import { fetchRequestWhatIf, type EdgeKey, type RequestAnswer } from '../../api/whatif';
import type { TimeRange } from '../../state/filters';
import { usePreviewAnswer, type Quality } from '../../state/use-preview-answer';

export type { Quality } from '../../state/use-preview-answer';

export type RequestState =
  | { kind: 'loading' }
  | { kind: 'ready'; answer: RequestAnswer; quality: Quality; policy: WhatIfPolicy }
  | { kind: 'error'; message: string };

/**
 * The whole-request answer (POST /api/v1/whatif) following the controls: each change asks a
 * preview (the server's cached trees, one replay, 200 resamples), the full answer once the
 * controls rest (use-preview-answer.ts: one request in flight, latest wins).
 */
export function useRequestWhatIf(
  edge: EdgeKey,
  range: TimeRange,
  policy: WhatIfPolicy,
  seed: number,
): { state: RequestState; busy: boolean; previews: number } {
  const { state, busy, previews } = usePreviewAnswer(
    JSON.stringify([edge, range, seed]),
    policy,
    (p: WhatIfPolicy, quality: Quality, signal: AbortSignal) =>
      fetchRequestWhatIf(range, edge, p, seed, signal, quality),
  );
  const view: RequestState =
    state.kind === 'ready'
      ? { kind: 'ready', answer: state.answer, quality: state.quality, policy: state.input }
      : state;
  return { state: view, busy, previews };
}
