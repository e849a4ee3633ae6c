/**
 * The bytes of OTLP request bodies held at once, across every request on both receivers. A
 * request takes its share before its body is read (its Content-Length, or chunk by chunk when
 * the length is not declared) and gives it back when it has been answered; past the cap it is
 * answered 429 / RESOURCE_EXHAUSTED at once. When nothing is held, one request may take more
 * than the cap, so a cap below the request size limit does not refuse such requests forever.
 */
export class InflightBudget {
  private held = 0;

  constructor(readonly maxBytes: number) {}

  get bytes(): number {
    return this.held;
  }

  isFull(): boolean {
    return this.held >= this.maxBytes;
  }

  /** `own`: bytes the caller holds already (a body taken chunk by chunk is one request). */
  tryAcquire(n: number, own = 0): boolean {
    if (this.held - own > 0 && this.held + n > this.maxBytes) return false;
    this.held += n;
    return true;
  }

  release(n: number): void {
    this.held = Math.max(0, this.held - n);
  }
}
