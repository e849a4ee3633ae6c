import { useContext } from 'react';
import { NavLink, Outlet, useLocation } from 'react-router';
import { SessionContext } from '../state/session-context';
import { TimeRangePicker } from './TimeRangePicker';
import { OperationPicker } from './OperationPicker';
import { FILTER_KEYS } from '../state/filters';

const PAGES = [
  { to: '/', label: 'Overview', end: true },
  { to: '/fanouts', label: 'Fan-outs', end: false },
  { to: '/stragglers', label: 'Stragglers', end: false },
  { to: '/map', label: 'Service map', end: false },
  { to: '/whatif', label: 'What-if', end: false },
  { to: '/capacity', label: 'Capacity', end: false },
  { to: '/criticalpath', label: 'Critical path', end: false },
  { to: '/traces', label: 'Traces', end: true },
];

/** Carries the shared filters (not page-specific keys) to the page a nav link opens. */
function sharedSearch(search: string): string {
  const src = new URLSearchParams(search);
  const out = new URLSearchParams();
  for (const k of FILTER_KEYS) {
    const v = src.get(k);
    if (v !== null) out.set(k, v);
  }
  const s = out.toString();
  return s === '' ? '' : `?${s}`;
}

function Logo() {
  return (
    <svg width="22" height="22" viewBox="0 0 22 22" aria-hidden="true">
      <path d="M2 19 H20" stroke="currentColor" strokeOpacity="0.35" strokeWidth="1.5" />
      <path
        d="M2 18 C7 18 8 17 10 12 S14 3 20 3"
        fill="none"
        stroke="var(--accent)"
        strokeWidth="2.2"
        strokeLinecap="round"
      />
    </svg>
  );
}

export function Shell() {
  const loc = useLocation();
  const session = useContext(SessionContext);
  const search = sharedSearch(loc.search);
  const withOperation = ['/fanouts', '/stragglers', '/whatif', '/capacity'].some((p) =>
    loc.pathname.startsWith(p),
  );
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <div className="top-row">
          <NavLink to={{ pathname: '/', search }} className="brand" aria-label="Tailscope overview">
            <Logo />
            Tailscope
          </NavLink>
          <nav className="nav" aria-label="Pages">
            {PAGES.map((p) => (
              <NavLink key={p.to} to={{ pathname: p.to, search }} end={p.end}>
                {p.label}
              </NavLink>
            ))}
          </nav>
          <span className="spacer" />
          {session.required && (
            <button type="button" onClick={session.logOut}>
              Log out
            </button>
          )}
        </div>
        <div className="filters" role="search" aria-label="Time range and filters">
          <TimeRangePicker />
          {withOperation && <OperationPicker />}
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </>
  );
}
