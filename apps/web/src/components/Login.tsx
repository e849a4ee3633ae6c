import { useState, type SyntheticEvent } from 'react';
import { logIn } from '../api/session';

/**
 * Asked once when the server has TAILSCOPE_API_TOKENS: the token goes to /api/v1/session, which
 * answers with an HttpOnly cookie; this page never stores it.
 */
export function Login({ onDone, expired }: { onDone: () => void; expired: boolean }) {
  const [token, setToken] = useState('');
  const [message, setMessage] = useState<string | undefined>(
    expired ? 'Your session ended: log in again.' : undefined,
  );
  const [busy, setBusy] = useState(false);

  const submit = (e: SyntheticEvent) => {
    e.preventDefault();
    setBusy(true);
    logIn(token.trim())
      .then((r) => {
        if (r.ok) onDone();
        else setMessage(r.message);
      })
      .catch((err: unknown) => {
        setMessage(err instanceof Error ? err.message : String(err));
      })
      .finally(() => {
        setBusy(false);
      });
  };

  return (
    <main className="login">
      <form className="panel" onSubmit={submit} aria-label="Log in">
        <h1>Tailscope</h1>
        <p>This server needs an API token (one of TAILSCOPE_API_TOKENS).</p>
        <label>
          API token{' '}
          <input
            type="password"
            name="token"
            autoComplete="current-password"
            value={token}
            onChange={(e) => {
              setToken(e.target.value);
            }}
            required
          />
        </label>{' '}
        <button type="submit" className="primary" disabled={busy || token.trim() === ''}>
          Log in
        </button>
        {message !== undefined && (
          <p role="alert" className="state error">
            {message}
          </p>
        )}
      </form>
    </main>
  );
}
