/** The planted truth of the `microservices` application: every edge's structure and quirk. */
import { appNames, kindNames, topologyOf } from './app-topology';
import { duplicatedLoopCall, duplicateOffsets } from './app-model';
import type { Plan } from './plan';
import type { AppSpec } from './spec';

export type EdgeStructure = 'parallel' | 'pool' | 'sequential' | 'single';

export interface EdgeTruth {
  parentService: string;
  parentOperation: string;
  leafService: string;
  leafOperation: string;
  structure: EdgeStructure;
  /** Calls in flight at once in every request (the pool size k for `pool`). */
  concurrency: number;
  callsPerRequest: number;
  /** How the calls travel: CLIENT, INTERNAL with client attributes, or PRODUCER. */
  callKind: 'CLIENT' | 'INTERNAL' | 'PRODUCER';
  /** Each call sits under a single-child INTERNAL wrapper span. */
  wrapped: boolean;
  /** The callee sends SERVER spans (else the leaf is named by peer.service). */
  serverSpans: boolean;
}

export interface AppTruth {
  kind: 'microservices';
  spansPerRequest: number;
  services: { name: string; hosts: string[]; singleReplica: boolean }[];
  edges: EdgeTruth[];
  /** A PRODUCER whose CONSUMER children are one call, not a fan-out. */
  messaging: {
    producer: { service: string; operation: string };
    consumers: { service: string; operation: string }[];
  };
  /** Requests i with i % every === offset send these spans twice (byte-identical copies). */
  duplicates: {
    every: number;
    groups: {
      offset: number;
      requests: number;
      spans: { service: string; name: string; kind: string; position?: number }[];
    }[];
    /** Extra span copies in the whole run. */
    spans: number;
  };
  /** Every SERVER span on serverHost lies skewMs later than its CLIENT on clientHost. */
  skew: { clientHost: string; serverHost: string; skewMs: number; calls: number };
  /** Spans of this service carry whole-millisecond times (floored). */
  msTruncated: { service: string; hosts: string[] };
  /** Calls into host (one pod) starting in [startMs, endMs) are factor U(min, max) slower. */
  fault: {
    service: string;
    host: string;
    startMs: number;
    endMs: number;
    factorMin: number;
    factorMax: number;
  };
}

const countOffset = (requests: number, every: number, offset: number) =>
  requests > offset ? Math.floor((requests - 1 - offset) / every) + 1 : 0;

export function buildAppTruth(plan: Plan, app: AppSpec): AppTruth {
  const topo = topologyOf(app);
  const hostsOf = (name: string) => topo.services.find((s) => s.name === name)?.hosts ?? [];
  const root = { parentService: 'frontend', parentOperation: appNames.root };
  const edge = (
    e: Omit<EdgeTruth, 'wrapped' | 'serverSpans' | 'callKind'> & Partial<EdgeTruth>,
  ): EdgeTruth => ({ callKind: 'CLIENT', wrapped: false, serverSpans: true, ...e });
  const single = { structure: 'single' as const, concurrency: 1, callsPerRequest: 1 };
  const driver = { parentService: 'driver', parentOperation: appNames.driver };
  const every = app.duplicateEvery;
  const pair = countOffset(plan.requests, every, duplicateOffsets.customerPair);
  const loop = countOffset(plan.requests, every, duplicateOffsets.loopCall);
  const durationMs = plan.durationNs / 1e6;
  const pricing = hostsOf('pricing');
  return {
    kind: 'microservices',
    spansPerRequest: 0, // filled by the generator
    services: topo.services.map((s) => ({
      name: s.name,
      hosts: s.hosts,
      singleReplica: s.hosts.length === 1,
    })),
    edges: [
      edge({
        ...root,
        leafService: 'customer',
        leafOperation: appNames.customer,
        ...single,
        callKind: 'INTERNAL',
        wrapped: true,
      }),
      edge({
        parentService: 'customer',
        parentOperation: appNames.customer,
        leafService: 'mysql',
        leafOperation: 'SQL SELECT',
        ...single,
        serverSpans: false,
      }),
      edge({ ...root, leafService: 'driver', leafOperation: appNames.driver, ...single }),
      edge({
        ...driver,
        leafService: 'redis',
        leafOperation: 'FindDriverIDs',
        ...single,
        serverSpans: false,
      }),
      edge({
        ...driver,
        leafService: 'redis',
        leafOperation: 'GetDriver',
        structure: 'sequential',
        concurrency: 1,
        callsPerRequest: app.loopCalls,
        serverSpans: false,
      }),
      edge({
        ...root,
        leafService: 'route',
        leafOperation: appNames.route,
        structure: 'pool',
        concurrency: app.poolWorkers,
        callsPerRequest: app.poolCalls,
        callKind: 'INTERNAL',
        wrapped: true,
      }),
      edge({
        ...root,
        leafService: 'pricing',
        leafOperation: appNames.quote,
        structure: 'parallel',
        concurrency: app.parallelHosts,
        callsPerRequest: app.parallelHosts,
      }),
      edge({
        ...root,
        leafService: 'kafka',
        leafOperation: `${appNames.topic} publish`,
        ...single,
        callKind: 'PRODUCER',
        serverSpans: false,
      }),
    ],
    messaging: {
      producer: { service: 'frontend', operation: `${appNames.topic} publish` },
      consumers: [
        { service: 'notifier', operation: `${appNames.topic} process` },
        { service: 'audit', operation: `${appNames.topic} process` },
      ],
    },
    duplicates: {
      every,
      groups: [
        {
          offset: duplicateOffsets.customerPair,
          requests: pair,
          spans: [
            { service: 'frontend', name: 'HTTP GET', kind: kindNames[1] ?? '' },
            { service: 'customer', name: appNames.customer, kind: kindNames[2] ?? '' },
          ],
        },
        {
          offset: duplicateOffsets.loopCall,
          requests: loop,
          spans: [
            {
              service: 'driver',
              name: 'GetDriver',
              kind: kindNames[3] ?? '',
              position: duplicatedLoopCall,
            },
          ],
        },
      ],
      spans: 2 * pair + loop,
    },
    skew: {
      clientHost: hostsOf('frontend')[0] ?? '',
      serverHost: pricing[pricing.length - 1] ?? '',
      skewMs: app.skewMs,
      calls: plan.requests,
    },
    msTruncated: { service: 'driver', hosts: hostsOf('driver') },
    fault: {
      service: 'customer',
      host: hostsOf('customer')[0] ?? '',
      startMs: app.fault.startFraction * durationMs,
      endMs: app.fault.endFraction * durationMs,
      factorMin: app.fault.factorMin,
      factorMax: app.fault.factorMax,
    },
  };
}
