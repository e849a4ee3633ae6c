/**
 * Tracegen speed: spans/s generated, and generated + encoded as OTLP protobuf and JSON.
 * `npm run bench:tracegen [-- --spans N]` (default 2,000,000 spans per protobuf run; JSON runs
 * a quarter of that). Single-threaded; prints one line per measurement.
 */
import { performance } from 'node:perf_hooks';
import {
  createGenerator,
  encodeOtlpJson,
  encodeOtlpProtobuf,
  presetSpec,
  type PresetName,
} from '@tailscope/tracegen';

const argAt = process.argv.indexOf('--spans');
const spans = argAt > 0 ? Number(process.argv[argAt + 1]) : 2_000_000;
if (!Number.isInteger(spans) || spans < 1000) throw new Error('--spans must be an integer >= 1000');

function generatorFor(name: PresetName, targetSpans: number) {
  const probe = createGenerator(presetSpec(name), { requests: 100, seed: 1 });
  const perRequest = probe.expectedSpans / 100;
  return createGenerator(presetSpec(name), {
    requests: Math.max(1, Math.round(targetSpans / perRequest)),
    seed: 1,
  });
}

type Mode = 'generate' | 'protobuf' | 'json' | 'leafCalls';

function measure(name: PresetName, mode: Mode, targetSpans: number) {
  const gen = generatorFor(name, targetSpans);
  const began = performance.now();
  let count = 0;
  let bytes = 0;
  if (mode === 'leafCalls') {
    count = gen.leafCalls().calls.durationMs.length;
  } else {
    for (const batch of gen.batches()) {
      count += batch.spanCount;
      if (mode === 'protobuf') bytes += encodeOtlpProtobuf(batch).length;
      else if (mode === 'json') bytes += encodeOtlpJson(batch).length;
    }
  }
  const seconds = (performance.now() - began) / 1000;
  const unit = mode === 'leafCalls' ? 'calls' : 'spans';
  const rate = Math.round(count / seconds).toLocaleString('en-US');
  const mb = bytes
    ? `, ${(bytes / 1e6 / seconds).toFixed(0)} MB/s, ${(bytes / count).toFixed(0)} B/span`
    : '';
  const rss = (process.memoryUsage().rss / 1e6).toFixed(0);
  console.log(
    `${name.padEnd(22)} ${mode.padEnd(9)} ${count.toLocaleString('en-US').padStart(11)} ${unit} in ${seconds.toFixed(2)} s: ${rate} ${unit}/s${mb} (rss ${rss} MB)`,
  );
}

console.log(`node ${process.version}, ${spans.toLocaleString('en-US')} spans per protobuf run`);
for (const name of ['bigtable-multiget', 'service-tree', 'bobtail'] as const) {
  measure(name, 'generate', spans);
  measure(name, 'protobuf', spans);
  measure(name, 'json', Math.round(spans / 4));
}
measure('bigtable-multiget', 'leafCalls', Math.round(spans / 2));
