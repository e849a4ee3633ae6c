import type { ReactNode } from 'react';
import { ApiError } from '../api/client';
import type { Fanouts, Stats } from '../api/contracts';
import { otlpAddresses } from '../model/addresses';
import { emptyFanouts } from '../model/structure';
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
export function EmptyStore({ inRange, listen }: { inRange: boolean; listen?: Stats['listen'] }) {
  const otlp = otlpAddresses(listen, window.location.hostname);
  const url = otlp?.http ?? 'http://127.0.0.1:4318/v1/traces';
  return (
    <div className="state" data-state="empty">
      <h2>{inRange ? 'No fan-outs in this time range' : 'No traces yet'}</h2>
      {inRange ? (
        <p>Pick a wider time range above, or “All data”.</p>
      ) : (
        <>
          <p data-testid="otlp-addresses">
            {otlp ? (
              <>
                Send OpenTelemetry traces to this server: OTLP/HTTP <code>{otlp.http}</code>,
                OTLP/gRPC <code>{otlp.grpc}</code>. Or try it with generated traffic:
              </>
            ) : (
              <>
                Send OpenTelemetry traces to this server&apos;s OTLP endpoint (this server does not
                say which ports it listens on; by default HTTP :4318, gRPC :4317), or try it with
                generated traffic:
              </>
            )}
          </p>
          <pre>
            {`npm run demo
# or planted causes from the generator:
npx tailscope generate --scenario sick-host --otlp ${url}`}
          </pre>
        </>
      )}
    </div>
  );
}

/** No fan-out in the range: why, in the server's words, and the edges it found instead. */
export function NoFanouts({
  answer,
  children,
}: {
  answer: Pick<Fanouts, 'hint' | 'edges'>;
  children?: ReactNode;
}) {
  const v = emptyFanouts(answer);
  return (
    <div className="state" data-state="empty">
      <h2>{v.title}</h2>
      <p data-testid="no-fanouts-hint">{v.why}</p>
      {v.edges.length > 0 && (
        <div className="table-wrap">
          <table data-testid="no-fanouts-edges">
            <thead>
              <tr>
                <th>Caller</th>
                <th>Callee</th>
                <th className="n">Requests</th>
                <th>Structure</th>
              </tr>
            </thead>
            <tbody>
              {v.edges.map((e) => (
                <tr key={e.key}>
                  <td>{e.from}</td>
                  <td>{e.to}</td>
                  <td className="n">{e.requests}</td>
                  <td>{e.structure}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p>Pick a wider time range above, or “All data”.</p>
      {children}
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
