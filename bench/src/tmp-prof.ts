import { openStore } from '@tailscope/api';
import { requestTreesFromColumns, prepareRequestWhatIf, simulateRequestWhatIf } from '@tailscope/analysis';
import { loadRequestColumns } from '../../apps/api/src/store/request-columns';
const store = openStore({ dataDir: '/tmp/tailscope-bench-slider-microservices-100000' });
const from = Date.parse('2025-01-01T00:00:00Z');
const edge = { leafService: 'pricing', leafOperation: 'GET /quote' };
const r = await loadRequestColumns(store, { fromNs: BigInt(from) * 1_000_000n, toNs: BigInt(from + 3_600_000 * 24) * 1_000_000n, ...edge }, { maxTraces: 100000, maxSpans: 8_000_000 });
await store.close();
const trees = requestTreesFromColumns(r!.columns);
const prepared = prepareRequestWhatIf(trees, edge, { kind: 'hedge' });
simulateRequestWhatIf(trees, edge, { kind: 'hedge', delayPercentile: 80 }, { seed: 1, prepared, replays: 1, bootstrapSamples: 200 });
const ts: number[] = [];
for (let i = 0; i < 20; i++) {
  const t = performance.now();
  simulateRequestWhatIf(trees, edge, { kind: 'hedge', delayPercentile: 80 + i }, { seed: 1, prepared, replays: 1, bootstrapSamples: Number(process.env.B ?? 200) });
  ts.push(performance.now() - t);
}
console.log(ts.map((x) => x.toFixed(0)).join(' '));
