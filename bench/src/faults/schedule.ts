/**
 * The fault schedule and its labels: fault-free stretches and faults in turn, starting and
 * ending fault-free. Pure: the run (run.ts) stamps the real start and end of each.
 */

/** HotROD's services, one process each. */
export const SERVICES = ['frontend', 'customer', 'driver', 'route'] as const;
export type Service = (typeof SERVICES)[number];

export const FAULT_KINDS = ['cpu', 'delay', 'loss', 'pool', 'lock'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface PlannedFault {
  fault: FaultKind;
  target: Service;
}

/** A written label: what ran where from when to when (epoch ms). `none`: fault-free. */
export interface FaultLabel {
  fault: FaultKind | 'none';
  /** '' for a fault-free stretch. */
  target: Service | '';
  startMs: number;
  endMs: number;
  /** The exact injection (the tc or HotROD flags, the burner count). */
  detail: string;
  /** What the fault measurably did (a queue's mean backlog, the packets dropped). */
  measured?: string;
  /**
   * Whether the load was quiet before the fault (quiet.ts): false when it was still not after
   * the longest wait, so the fault's baseline held a backlog.
   */
  quietBefore?: boolean;
  /** How long the stretch before the fault was held beyond the gap to get quiet, ms. */
  waitedMs?: number;
}

/**
 * Where each kind can go: the pool is the frontend's (its worker pool for route calls, HotROD's
 * -W) and the lock is customer's (its MySQL connection mutex, made busier with -D).
 */
export const TARGETS: Record<FaultKind, readonly Service[]> = {
  cpu: ['customer', 'driver', 'route', 'frontend'],
  delay: ['customer', 'driver', 'route'],
  loss: ['customer', 'driver', 'route'],
  pool: ['frontend'],
  lock: ['customer'],
};

/** The short schedule: 6 faults, every kind, network faults on three services. */
export const SHORT_SCHEDULE: readonly PlannedFault[] = [
  { fault: 'delay', target: 'customer' },
  { fault: 'cpu', target: 'driver' },
  { fault: 'delay', target: 'route' },
  { fault: 'lock', target: 'customer' },
  { fault: 'loss', target: 'driver' },
  { fault: 'pool', target: 'frontend' },
];

/** Parses `kind:target,kind:target` (`none`: no fault, a fault-free run); throws naming what is wrong. */
export function parseSchedule(text: string): PlannedFault[] {
  if (text.trim() === 'none') return [];
  return text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((item) => {
      const [kind = '', target = ''] = item.split(':');
      const fault = FAULT_KINDS.find((k) => k === kind);
      if (!fault) throw new Error(`FAULTS: unknown fault "${kind}" (${FAULT_KINDS.join(', ')})`);
      const service = SERVICES.find((s) => s === target);
      if (!service || !TARGETS[fault].includes(service))
        throw new Error(
          `FAULTS: ${fault} cannot target "${target}" (${TARGETS[fault].join(', ')})`,
        );
      return { fault, target: service };
    });
}

/** Services a root cause may name for a target: HotROD's in-process MySQL and Redis are theirs. */
const IN_PROCESS: Partial<Record<Service, readonly string[]>> = {
  customer: ['mysql'],
  driver: ['redis'],
};

/** Whether a root cause naming `service` names the fault's target. */
export const namesTarget = (service: string, target: Service): boolean =>
  service === target || (IN_PROCESS[target]?.includes(service) ?? false);
