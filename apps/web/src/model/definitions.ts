/**
 * One name and one definition per quantity the dashboard shows (issue 24: the Fan-outs page
 * called two different p99s "call p99", and the Overview two different ratios "amplification").
 * Every view that shows one of these uses its name as the label and its definition as the
 * tooltip, so the same name always means the same number.
 */
export const QUANTITIES = {
  callLatency: {
    name: 'Call p99',
    definition:
      'Call latency: the client span’s duration (what the caller waited for one call), over every call on the edge; type-7 quantile.',
  },
  oneLeafFinishing: {
    name: 'One leaf p99',
    definition:
      'One random leaf’s finishing time: from the fan-out’s first call start to that leaf’s end, one leaf per request (Table 1’s first column). In a pool it includes the wait for a worker, so it is above the call latency.',
  },
  requestAllLeaves: {
    name: 'Request p99',
    definition:
      'All leaves finish: from the fan-out’s first call start to its last call’s end, per request (Table 1’s last column).',
  },
  tailAmplification: {
    name: 'Tail amplification',
    definition:
      'P(request slower than t) / P(one call slower than t), t = the call-latency p99 unless set: how many times more often a request is slow than a call.',
  },
  p99Ratio: {
    name: 'p99 ratio',
    definition: 'Request (all leaves) p99 / one leaf’s finishing-time p99.',
  },
} as const;

export type Quantity = keyof typeof QUANTITIES;
