import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import type { Store } from '../src/store';
import { describeConsistency } from './consistency-support';

/**
 * One number per question (issue 24) on a recorded `tailscope demo` run: real OpenTelemetry JS
 * spans of the demo cluster (a root fanning out to 8 of 24 virtual leaf hosts, CPU co-tenancy,
 * GC and compaction reported as background-activity spans), as the server stored them. Recorded
 * with `tailscope demo --duration 30 --rate 6 --leaf-processes 3` on a busy 2-core machine (load
 * average ~28: 182 requests, 4 failed, root p99 ~5 s) and dumped from otel_traces (`SELECT ...
 * FORMAT JSONEachRow`, 3,580 spans: 1,456 calls, 408 GC and 72 compaction spans), with resource
 * and span attributes no analysis reads (process.*, the probe's figures, network.*) dropped to
 * keep the file small (142 kB). Inserted as a Collector would write the table.
 */

const FIXTURE = new URL('./__fixtures__/demo-run.jsonl.gz', import.meta.url);

async function loadDemoRun(store: Store): Promise<void> {
  const lines = gunzipSync(readFileSync(FIXTURE)).toString('utf8').split('\n').filter(Boolean);
  for (let i = 0; i < lines.length; i += 5000)
    await store.client.command({
      query: `INSERT INTO otel_traces FORMAT JSONEachRow\n${lines.slice(i, i + 5000).join('\n')}`,
    });
}

describeConsistency('a recorded demo run', { fault: false, load: loadDemoRun });
