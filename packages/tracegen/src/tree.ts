/**
 * Spans of arbitrary trees (the `microservices` application), for one batch: each span names
 * its resource, its template (name, kind, attributes) and its parent by position in the batch.
 * `emit` is the wire order's source: a span listed twice is sent twice, byte for byte.
 */
export class TreeSpans {
  readonly resource: number[] = [];
  readonly template: number[] = [];
  /** Position of the span's request in the batch (its trace id is traceIds[16 * r]). */
  readonly request: number[] = [];
  /** Position of the parent span in this batch, or -1 for a root. */
  readonly parent: number[] = [];
  readonly startNs: number[] = [];
  readonly endNs: number[] = [];
  readonly spanIds: Uint8Array;
  readonly traceIds: Uint8Array;
  /** Spans in the order they go out (within each resource); duplicates appear twice. */
  readonly emit: number[] = [];

  constructor(maxSpans: number, maxRequests: number) {
    this.spanIds = new Uint8Array(8 * maxSpans);
    this.traceIds = new Uint8Array(16 * maxRequests);
  }

  get size(): number {
    return this.template.length;
  }

  /** Adds a span and returns its position; `emit` gets it once. */
  add(
    resource: number,
    template: number,
    request: number,
    parent: number,
    startNs: number,
    endNs: number,
  ): number {
    const i = this.template.length;
    this.resource.push(resource);
    this.template.push(template);
    this.request.push(request);
    this.parent.push(parent);
    this.startNs.push(startNs);
    this.endNs.push(endNs);
    this.emit.push(i);
    return i;
  }

  /** Sends span `i` once more (a duplicate, as a retrying exporter or a doubled pipeline would). */
  duplicate(i: number): void {
    this.emit.push(i);
  }

  /** Emit entries grouped by resource (stable): order[groupOffset[g] .. groupOffset[g + 1]). */
  grouped(resourceCount: number): { groupOffset: Uint32Array; order: Uint32Array } {
    const groupOffset = new Uint32Array(resourceCount + 1);
    for (const i of this.emit) {
      const g = (this.resource[i] ?? 0) + 1;
      groupOffset[g] = (groupOffset[g] ?? 0) + 1;
    }
    for (let g = 0; g < resourceCount; g++)
      groupOffset[g + 1] = (groupOffset[g + 1] ?? 0) + (groupOffset[g] ?? 0);
    const next = groupOffset.slice(0, resourceCount);
    const order = new Uint32Array(this.emit.length);
    for (const i of this.emit) {
      const res = this.resource[i] ?? 0;
      const at = next[res] ?? 0;
      next[res] = at + 1;
      order[at] = i;
    }
    return { groupOffset, order };
  }
}
