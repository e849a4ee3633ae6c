import { presetSpec } from '@tailscope/tracegen';
import { ingestScenario } from './analysis-support';
import { describeConsistency } from './consistency-support';

/**
 * One number per question (issue 24) on tracegen's `microservices` application (planted fault:
 * the customer service's database). A reduced request count keeps the run well under a minute.
 */

const REQUESTS = 2000;

describeConsistency('microservices', {
  rootRequests: REQUESTS,
  fault: true,
  load: async (store) => {
    await ingestScenario(store, presetSpec('microservices'), {
      requests: REQUESTS,
      seed: 7,
      start: '2026-03-01T00:00:00Z',
    });
  },
});
