import { useEffect, useMemo, useState, type ReactNode } from 'react';
import { getSession, logOut, UNAUTHORIZED_EVENT } from '../api/session';
import { SessionContext } from '../state/session-context';
import { Login } from './Login';
import { Loading } from './states';

type Gate = 'checking' | 'open' | 'login' | 'expired';

/**
 * Shows the dashboard when the API lets this browser in (no tokens configured, or a valid
 * session cookie), the log-in form otherwise, and again whenever an API call answers 401.
 */
export function SessionGate({ children }: { children: ReactNode }) {
  const [gate, setGate] = useState<Gate>('checking');
  const [required, setRequired] = useState(false);
  const control = useMemo(
    () => ({
      required,
      logOut: () => {
        void logOut().finally(() => {
          setGate('login');
        });
      },
    }),
    [required],
  );

  useEffect(() => {
    let live = true;
    getSession()
      .then((s) => {
        if (!live) return;
        setRequired(s.required);
        setGate(!s.required || s.authenticated ? 'open' : 'login');
      })
      // A server without /api/v1/session (older) or unreachable: let the pages say what is wrong.
      .catch(() => {
        if (live) setGate('open');
      });
    const expire = () => {
      setGate('expired');
    };
    window.addEventListener(UNAUTHORIZED_EVENT, expire);
    return () => {
      live = false;
      window.removeEventListener(UNAUTHORIZED_EVENT, expire);
    };
  }, []);

  if (gate === 'checking') return <Loading label="Checking the session…" />;
  if (gate === 'open')
    return <SessionContext.Provider value={control}>{children}</SessionContext.Provider>;
  return (
    <Login
      expired={gate === 'expired'}
      onDone={() => {
        setGate('open');
      }}
    />
  );
}
