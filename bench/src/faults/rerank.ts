// tsx bench/src/faults/rerank.ts STORE_DIR RESULT.json [OUT.json] — scores an earlier
// bench:faults run again with the current code (docs/incidents.md "Figures"): the run's store,
// kept with KEEP_DATA=1, opened in process (the answer cache off), and its labels (from its
// result file) scored against GET /api/v1/incidents as run.ts scores them. So every run with a
// kept store counts with the ranking as it now is. Writes OUT (default RESULT-rerank.json).
process.env.TAILSCOPE_ANSWER_CACHE_MB = '0';
import { readFileSync, writeFileSync } from 'node:fs';
import { buildStoreApi, openStore } from '@tailscope/api';
import { scoreRun, type IncidentsAnswer, type RunResult } from './run';

const [dir, resultPath, outArg] = process.argv.slice(2);
if (!dir || !resultPath) {
  console.error('usage: tsx bench/src/faults/rerank.ts STORE_DIR RESULT.json [OUT.json]');
  process.exit(2);
}
const run = JSON.parse(readFileSync(resultPath, 'utf8')) as RunResult;
const store = openStore({ dataDir: dir });
const api = await buildStoreApi(store);
try {
  const incidents = async (from: number, to: number): Promise<IncidentsAnswer> => {
    const url = `/api/v1/incidents?from=${String(Math.floor(from))}&to=${String(Math.ceil(to))}`;
    const res = await api.inject({ method: 'GET', url });
    if (res.statusCode !== 200) throw new Error(`${url}: ${String(res.statusCode)} ${res.body}`);
    return res.json<IncidentsAnswer>();
  };
  // The read either side of a first or last fault, as the run read it: its lead stretch.
  const lead = run.labels.find((l) => l.fault === 'none');
  const scored = await scoreRun(run.labels, incidents, {
    gapMs: lead ? lead.endMs - lead.startMs : 60_000,
    falsePositives: true,
    log: (line) => {
      console.log(line);
    },
  });
  const out = outArg ?? resultPath.replace(/\.json$/, '') + '-rerank.json';
  writeFileSync(
    out,
    `${JSON.stringify({ ...scored, load: run.load, rerankOf: resultPath }, null, 1)}\n`,
  );
  for (const k of scored.summary)
    console.log(
      `${k.fault.padEnd(6)} ${String(k.faults).padStart(3)} faults, ${String(k.detected)} detected, top-1 ${k.top1.toFixed(2)}, top-3 ${k.top3.toFixed(2)}, within 2 windows ${String(k.withinTwoWindows)}`,
    );
  console.log(
    `false incidents: ${String(scored.falseIncidents.length)} in ${scored.faultFreeMinutes.toFixed(1)} min\nwritten: ${out}`,
  );
} finally {
  await api.close();
  await store.close();
}
