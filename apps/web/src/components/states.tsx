import type { ReactNode } from 'react';
import { ApiError } from '../api/client';
import { useStore } from '../state/store-context';

export function Loading({ label = 'Loading…', height = 220 }: { label?: string; height?: number }) {
  return (
    <div role="status" aria-live="polite" aria-label={label}>
      <div className="skeleton" style={{ height }} />
    </div>
  );
}

export function ErrorState({ error, what }: { error: Error; what: string }) {
  const status = error instanceof ApiError ? ` (HTTP ${error.status})` : '';
  const { refresh } = useStore();
  return (
    <div className="state error panel" role="alert">
      <h2>Could not load {what}</h2>
      <p>
        {error.message}
        {status}
      </p>
      {error instanceof ApiError && error.status === 404 && (
        <p>This server may not offer that endpoint yet: check that Tailscope is up to date.</p>
      )}
      <button type="button" onClick={refresh}>
        Try again
      </button>
    </div>
  );
}

/** The store holds no spans (or none in the range): say how to get some. */
export function EmptyStore({ inRange }: { inRange: boolean }) {
  return (
    <div className="state" data-state="empty">
      <h2>{inRange ? 'No fan-outs in this time range' : 'No traces yet'}</h2>
      {inRange ? (
        <p>Pick a wider time range above, or “All data”.</p>
      ) : (
        <>
          <p>
            Send OpenTelemetry traces to the OTLP endpoint (HTTP :4318, gRPC :4317), or try it with
            generated traffic:
          </p>
          <pre>
            {`npm run demo
# or planted causes from the generator:
npx tailscope generate --scenario sick-host --otlp http://127.0.0.1:4318/v1/traces`}
          </pre>
        </>
      )}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="state" data-state="empty">
      <h2>{title}</h2>
      {children}
    </div>
  );
}
