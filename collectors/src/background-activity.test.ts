import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { reportGcPauses, runReported } from './background-activity';

function memoryHost(host: string) {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'host.name': host }),
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  return { exporter, provider, tracer: provider.getTracer('test') };
}

const a = memoryHost('host-a');
const b = memoryHost('host-b');
afterAll(async () => {
  await a.provider.shutdown();
  await b.provider.shutdown();
});

describe('reportGcPauses', () => {
  it('reports a real major GC as a gc span on every host of the process', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const reporter = reportGcPauses([a.tracer, b.tracer], { minDurationMs: 0 });
    // A retained heap makes the forced mark-compact take measurable time.
    const keep = Array.from({ length: 200_000 }, (_, i) => ({ i, s: `v${String(i)}` }));
    const before = Date.now();
    gc();
    await new Promise((r) => setTimeout(r, 50));
    reporter.stop();
    expect(keep.length).toBe(200_000);
    expect(reporter.reported()).toBeGreaterThan(0);
    for (const host of [a, b]) {
      const spans = host.exporter.getFinishedSpans().filter((s) => s.name === 'gc');
      const major = spans.find((s) => s.attributes['gc.kind'] === 'major');
      expect(major?.attributes['background.activity']).toBe('gc');
      expect(major?.resource.attributes['host.name']).toBe(host === a ? 'host-a' : 'host-b');
      // The span keeps the pause's own time: it started after we asked, not at report time.
      const startMs = (major?.startTime[0] ?? 0) * 1000 + (major?.startTime[1] ?? 0) / 1e6;
      expect(startMs).toBeGreaterThanOrEqual(before - 50);
      expect(major?.parentSpanContext).toBeUndefined();
    }
  });
});

describe('runReported', () => {
  it('reports a wrapped command as a background.activity span with its exit code', async () => {
    a.exporter.reset();
    const res = await runReported([a.tracer], {
      activity: 'cron',
      command: process.execPath,
      args: ['-e', 'setTimeout(() => process.exit(3), 30)'],
    });
    expect(res.exitCode).toBe(3);
    const [span] = a.exporter.getFinishedSpans();
    expect(span?.name).toBe('cron');
    expect(span?.attributes['background.activity']).toBe('cron');
    expect(span?.attributes['process.exit.code']).toBe(3);
    expect(span?.status.code).toBe(2); // ERROR
  });

  it('rejects when the command does not exist', async () => {
    await expect(
      runReported([a.tracer], { activity: 'cron', command: '/nonexistent/cmd', args: [] }),
    ).rejects.toThrow(/ENOENT/);
  });
});
