/**
 * One request body's worth of whole traces, columnar: per request, per call, plus the background
 * windows that end within it. Times are integer nanoseconds after the run's start.
 */
import type { Plan, WindowSpan } from './plan';
import type { TreeSpans } from './tree';

export class SpanBatch {
  requestCount = 0;
  callCount = 0;
  spanCount = 0;
  readonly windows: WindowSpan[] = [];
  /** Application scenarios (spec.app): their spans; the per-call columns stay empty. */
  tree: TreeSpans | null = null;

  // Per request.
  readonly reqStartNs: Float64Array;
  readonly reqEndNs: Float64Array;
  readonly rootHost: Uint32Array;
  /** Calls of request r are callOffset[r] .. callOffset[r + 1] - 1. */
  readonly callOffset: Uint32Array;
  readonly traceIds: Uint8Array; // 16 bytes each
  readonly rootSpanIds: Uint8Array; // 8 bytes each

  // Per call.
  readonly callRequest: Uint32Array;
  readonly callHost: Uint32Array;
  /** The call as its caller sees it (the CLIENT span, or the SERVER span in server-only). */
  readonly callStartNs: Float64Array;
  readonly callEndNs: Float64Array;
  /** The SERVER span inside a CLIENT span (client-server shape only). */
  readonly serverStartNs: Float64Array;
  readonly serverEndNs: Float64Array;
  readonly callBuild: Uint8Array;
  /** CallEffect bits. */
  readonly callEffects: Uint8Array;
  /** 0: no background window overlaps; a + 1: the first activity a that does. */
  readonly callBackground: Uint8Array;
  readonly clientSpanIds: Uint8Array;
  readonly serverSpanIds: Uint8Array;

  constructor(
    readonly plan: Plan,
    /** 0-based position of this batch in the run. */
    readonly index: number,
    /** Global index of this batch's first request. */
    readonly firstRequest: number,
    maxWidth: number,
  ) {
    const r = plan.spansPerBatch + 1;
    const c = plan.spansPerBatch + maxWidth;
    this.reqStartNs = new Float64Array(r);
    this.reqEndNs = new Float64Array(r);
    this.rootHost = new Uint32Array(r);
    this.callOffset = new Uint32Array(r + 1);
    this.traceIds = new Uint8Array(16 * r);
    this.rootSpanIds = new Uint8Array(8 * r);
    this.callRequest = new Uint32Array(c);
    this.callHost = new Uint32Array(c);
    this.callStartNs = new Float64Array(c);
    this.callEndNs = new Float64Array(c);
    this.serverStartNs = new Float64Array(c);
    this.serverEndNs = new Float64Array(c);
    this.callBuild = new Uint8Array(c);
    this.callEffects = new Uint8Array(c);
    this.callBackground = new Uint8Array(c);
    this.clientSpanIds = new Uint8Array(8 * c);
    this.serverSpanIds = new Uint8Array(8 * c);
  }

  addWindow(w: WindowSpan): void {
    this.windows.push(w);
    this.spanCount++;
  }
}
