import { writeFileSync } from 'node:fs';
import { startCluster, type Cluster } from './cluster';
import { inject, type InjectOptions } from './inject';
import { isQuiet, loadBaseline, parseLoadReports, type LoadBaseline } from './quiet';
import type { FaultLabel, PlannedFault, Service } from './schedule';
import {
  falseIncidents,
  faultFreeMs,
  scoreFault,
  summarise,
  type FaultResult,
  type KindSummary,
  type ScoredIncident,
} from './score';

/**
 * One fault benchmark run (docs/incidents.md): the cluster up, the load on, a fault-free stretch,
 * then each planned fault for `faultMs` followed by `gapMs` fault-free; the labels are written
 * after every step. Then /api/v1/incidents is read per fault (its window with the stretches on
 * either side) and over the whole run (for false incidents), and scored. Whatever happens, the
 * fault is undone and the cluster (namespaces, processes, burners) removed.
 */

/** What the benchmark reads of GET /api/v1/incidents (the contract has more). */
export interface IncidentsAnswer {
  incidents: (ScoredIncident & { id: string; requests: number })[];
  windowSeconds?: number;
}

export interface RunOptions extends InjectOptions {
  hotrod: string;
  tag: string;
  schedule: readonly PlannedFault[];
  faultMs: number;
  gapMs: number;
  /** The first fault-free stretch (default gapMs) and the last one (default gapMs). */
  leadMs?: number;
  tailMs?: number;
  /** Read the whole run for false incidents (default true). */
  falsePositives?: boolean;
  /** Load, dispatches per second (open loop). */
  rate: number;
  /**
   * Longest a fault-free stretch is held beyond `gapMs` until the load is quiet (quiet.ts),
   * default 2 x gapMs; a fault after a stretch that never got quiet is labelled so.
   */
  maxWaitMs?: number;
  /** A delay is at least `delayMs` and this many times the target's median call (default 1). */
  delayPerCall?: number;
  /** Where the labels go (rewritten after every step), if anywhere. */
  labelsPath?: string;
  log?: (line: string) => void;
}

export interface RunResult {
  labels: FaultLabel[];
  results: FaultResult[];
  summary: KindSummary[];
  falseIncidents: IncidentsAnswer['incidents'];
  faultFreeMinutes: number;
  windowSeconds: number;
  /** The incidents answer per fault, as read. */
  answers: IncidentsAnswer[];
  load: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Exporters flush every 0.5 s; a few seconds more for the store. */
const FLUSH_MS = 5_000;

/** What the benchmark reads of GET /api/v1/edges. */
interface EdgesAnswer {
  edges: {
    parentService: string;
    leafService: string;
    calls?: number;
    requests: number;
    callLatency: { p50: number };
  }[];
}

/**
 * The delay for a fault on `target`, sized to its calls (docs/incidents.md "Network faults"):
 * at least `delayMs`, and `delayPerCall` times the median call into the target over the
 * fault-free stretch just before (its busiest edge from another service), so every target's
 * calls get at least about twice as slow. `delayMs` alone when the edges cannot be read.
 */
async function sizeDelay(
  c: Cluster,
  target: Service,
  stretch: FaultLabel | undefined,
  o: RunOptions,
): Promise<number> {
  const floor = o.delayMs ?? 100;
  if (!stretch) return floor;
  try {
    const q = `from=${String(stretch.startMs)}&to=${String(stretch.endMs)}`;
    const edges = (await c.api<EdgesAnswer>(`/api/v1/edges?${q}`)).edges
      .filter((e) => e.leafService === target && e.parentService !== target)
      .sort((a, b) => (b.calls ?? b.requests) - (a.calls ?? a.requests));
    const p50 = edges[0]?.callLatency.p50;
    return p50 === undefined ? floor : Math.max(floor, Math.round(p50 * (o.delayPerCall ?? 1)));
  } catch {
    return floor;
  }
}

/**
 * A run's labels scored against GET /api/v1/incidents as `incidents` answers it: per fault, the
 * fault with the stretches either side; for false incidents, the whole run. Also what
 * rerank.ts uses on a kept store, to score earlier runs with the current ranking.
 */
export async function scoreRun(
  labels: FaultLabel[],
  incidents: (fromMs: number, toMs: number) => Promise<IncidentsAnswer>,
  o: { gapMs: number; falsePositives: boolean; log?: (line: string) => void },
): Promise<Omit<RunResult, 'load'>> {
  const answers: IncidentsAnswer[] = [];
  const results: FaultResult[] = [];
  for (const [i, l] of labels.entries()) {
    if (l.fault === 'none') continue;
    const before = labels[i - 1]?.startMs ?? l.startMs - o.gapMs;
    const after = labels[i + 1]?.endMs ?? l.endMs + o.gapMs;
    const answer = await incidents(before, after);
    answers.push(answer);
    results.push(scoreFault(l, answer.incidents));
    o.log?.(`${l.fault} on ${l.target}: ${JSON.stringify(results.at(-1))}`);
  }
  const first = labels[0]?.startMs ?? 0;
  const last = labels.at(-1)?.endMs ?? first;
  const whole = o.falsePositives
    ? await incidents(first, last)
    : { incidents: [], windowSeconds: answers[0]?.windowSeconds };
  const settleMs = 2 * (whole.windowSeconds ?? 10) * 1000;
  return {
    labels,
    results,
    summary: summarise(results, (whole.windowSeconds ?? 10) * 1000),
    falseIncidents: falseIncidents(labels, whole.incidents, settleMs),
    faultFreeMinutes: faultFreeMs(labels, settleMs) / 60_000,
    windowSeconds: whole.windowSeconds ?? 0,
    answers,
  };
}

export async function runFaults(o: RunOptions): Promise<RunResult> {
  const log = o.log ?? (() => undefined);
  const labels: FaultLabel[] = [];
  const save = () => {
    if (o.labelsPath) writeFileSync(o.labelsPath, `${JSON.stringify({ labels }, null, 1)}\n`);
  };
  const cluster = await startCluster({ hotrod: o.hotrod, tag: o.tag });
  log(`network faults: ${cluster.netFaults}`);
  try {
    const load = await cluster.startLoad(o.rate);
    const reports = () => parseLoadReports(load.output());
    let base: LoadBaseline | null = null;
    /** A fault-free stretch of `ms`, held longer (up to `maxWaitMs`) until the load is quiet. */
    const quiet = async (ms: number, next: boolean) => {
      const startMs = Date.now();
      await sleep(ms);
      let waitedMs = 0;
      let calm = true;
      if (next && base) {
        const until = Date.now() + (o.maxWaitMs ?? 2 * o.gapMs);
        while (!(calm = isQuiet(reports(), base, Date.now())) && Date.now() < until)
          await sleep(2_000);
        waitedMs = Date.now() - startMs - ms;
        if (waitedMs >= 1_000)
          log(
            `held ${String(Math.round(waitedMs / 1000))} s more for quiet: ${calm ? 'quiet' : 'still not quiet'}`,
          );
      }
      labels.push({ fault: 'none', target: '', startMs, endMs: Date.now(), detail: '' });
      save();
      return { calm, waitedMs };
    };
    const lead = o.leadMs ?? o.gapMs;
    log(`load on at ${String(o.rate)}/s; fault-free for ${String(lead / 1000)} s`);
    const leadStart = Date.now();
    let before = await quiet(lead, false);
    // The lead's first quarter holds the services' warm-up.
    base = loadBaseline(reports(), leadStart + lead / 4, Date.now());
    log(`load baseline: ${JSON.stringify(base)}`);
    for (const [i, p] of o.schedule.entries()) {
      const delayMs =
        p.fault === 'delay' ? await sizeDelay(cluster, p.target, labels.at(-1), o) : o.delayMs;
      const startMs = Date.now();
      const fault = await inject(cluster, p.fault, p.target, {
        ...o,
        ...(delayMs ? { delayMs } : {}),
      });
      try {
        log(`${p.fault} on ${p.target}: ${fault.detail}`);
        await sleep(Math.max(0, o.faultMs - (Date.now() - startMs)));
      } finally {
        await fault.undo();
      }
      const endMs = Date.now();
      const measured = fault.measured?.();
      if (measured) log(`${p.fault} on ${p.target}: ${measured}`);
      labels.push({
        ...p,
        startMs,
        endMs,
        detail: fault.detail,
        ...(measured ? { measured } : {}),
        quietBefore: before.calm,
        waitedMs: before.waitedMs,
      });
      save();
      const last = i === o.schedule.length - 1;
      before = await quiet(last ? (o.tailMs ?? o.gapMs) : o.gapMs, !last);
    }
    await sleep(FLUSH_MS);
    const loadOut = load.output();
    await load.stop();
    const incidents = (from: number, to: number) =>
      cluster.api<IncidentsAnswer>(
        `/api/v1/incidents?from=${String(Math.floor(from))}&to=${String(Math.ceil(to))}`,
      );
    const scored = await scoreRun(labels, incidents, {
      gapMs: o.gapMs,
      falsePositives: o.falsePositives !== false,
      log,
    });
    return { ...scored, load: loadOut.trim().split('\n').slice(-2).join('\n') };
  } finally {
    await cluster.stop();
  }
}
