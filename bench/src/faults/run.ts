import { writeFileSync } from 'node:fs';
import { startCluster } from './cluster';
import { inject, type InjectOptions } from './inject';
import type { FaultLabel, PlannedFault } from './schedule';
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

export async function runFaults(o: RunOptions): Promise<RunResult> {
  const log = o.log ?? (() => undefined);
  const labels: FaultLabel[] = [];
  const save = () => {
    if (o.labelsPath) writeFileSync(o.labelsPath, `${JSON.stringify({ labels }, null, 1)}\n`);
  };
  const cluster = await startCluster({ hotrod: o.hotrod, tag: o.tag });
  try {
    const load = await cluster.startLoad(o.rate);
    const quiet = async (ms: number) => {
      const startMs = Date.now();
      await sleep(ms);
      labels.push({ fault: 'none', target: '', startMs, endMs: Date.now(), detail: '' });
      save();
    };
    const lead = o.leadMs ?? o.gapMs;
    log(`load on at ${String(o.rate)}/s; fault-free for ${String(lead / 1000)} s`);
    await quiet(lead);
    for (const [i, p] of o.schedule.entries()) {
      const startMs = Date.now();
      const fault = await inject(cluster, p.fault, p.target, o);
      try {
        log(`${p.fault} on ${p.target}: ${fault.detail}`);
        await sleep(Math.max(0, o.faultMs - (Date.now() - startMs)));
      } finally {
        await fault.undo();
      }
      const endMs = Date.now();
      labels.push({ ...p, startMs, endMs, detail: fault.detail });
      save();
      await quiet(i === o.schedule.length - 1 ? (o.tailMs ?? o.gapMs) : o.gapMs);
    }
    await sleep(FLUSH_MS);
    const loadOut = load.output();
    await load.stop();
    const incidents = (from: number, to: number) =>
      cluster.api<IncidentsAnswer>(
        `/api/v1/incidents?from=${String(Math.floor(from))}&to=${String(Math.ceil(to))}`,
      );
    const answers: IncidentsAnswer[] = [];
    const results: FaultResult[] = [];
    for (const [i, l] of labels.entries()) {
      if (l.fault === 'none') continue;
      const before = labels[i - 1]?.startMs ?? l.startMs - o.gapMs;
      const after = labels[i + 1]?.endMs ?? l.endMs + o.gapMs;
      const answer = await incidents(before, after);
      answers.push(answer);
      results.push(scoreFault(l, answer.incidents));
      log(`${l.fault} on ${l.target}: ${JSON.stringify(results.at(-1))}`);
    }
    const first = labels[0]?.startMs ?? 0;
    const last = labels.at(-1)?.endMs ?? first;
    const whole =
      o.falsePositives === false
        ? { incidents: [], windowSeconds: answers[0]?.windowSeconds }
        : await incidents(first, last);
    const settleMs = 2 * (whole.windowSeconds ?? 10) * 1000;
    return {
      labels,
      results,
      summary: summarise(results),
      falseIncidents: falseIncidents(labels, whole.incidents, settleMs),
      faultFreeMinutes: faultFreeMs(labels, settleMs) / 60_000,
      windowSeconds: whole.windowSeconds ?? 0,
      answers,
      load: loadOut.trim().split('\n').slice(-2).join('\n'),
    };
  } finally {
    await cluster.stop();
  }
}
