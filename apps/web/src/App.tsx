import { lazy, Suspense, type ReactNode } from 'react';
import { Route, Routes } from 'react-router';
import { Shell } from './components/Shell';
import { Loading } from './components/states';
import { StoreProvider } from './state/store-context';
import { Overview } from './pages/Overview';
import { Fanouts } from './pages/Fanouts';
import { Stragglers } from './pages/Stragglers';
import { ServiceMap } from './pages/ServiceMap';
import { NotFound } from './pages/NotFound';

// The what-if and trace pages carry the simulator's parameter tables and the leaf-data decoder:
// loaded when visited, so the first chart of the other pages does not wait for them.
const WhatIf = lazy(() => import('./pages/WhatIf').then((m) => ({ default: m.WhatIf })));
const Capacity = lazy(() => import('./pages/Capacity').then((m) => ({ default: m.Capacity })));
const loadTracePage = () => import('./pages/TracePage');
// Opened on a trace's URL: fetch the page's chunk now, beside the session check, not after it
// (the trace itself is already asked for by public/preload.js).
if (/^\/traces\/[0-9a-f]{32}\/?$/i.test(window.location.pathname)) void loadTracePage();
const TracePage = lazy(() => loadTracePage().then((m) => ({ default: m.TracePage })));
const Traces = lazy(() => import('./pages/Traces').then((m) => ({ default: m.Traces })));
const CriticalPath = lazy(() =>
  import('./pages/CriticalPath').then((m) => ({ default: m.CriticalPath })),
);

function Page({ children }: { children: ReactNode }) {
  return <Suspense fallback={<Loading />}>{children}</Suspense>;
}

export function App() {
  return (
    <StoreProvider>
      <Routes>
        <Route element={<Shell />}>
          <Route index element={<Overview />} />
          <Route path="fanouts" element={<Fanouts />} />
          <Route path="stragglers" element={<Stragglers />} />
          <Route path="map" element={<ServiceMap />} />
          <Route
            path="whatif"
            element={
              <Page>
                <WhatIf />
              </Page>
            }
          />
          <Route
            path="capacity"
            element={
              <Page>
                <Capacity />
              </Page>
            }
          />
          <Route
            path="traces"
            element={
              <Page>
                <Traces />
              </Page>
            }
          />
          <Route
            path="criticalpath"
            element={
              <Page>
                <CriticalPath />
              </Page>
            }
          />
          <Route
            path="traces/:traceId"
            element={
              <Page>
                <TracePage />
              </Page>
            }
          />
          <Route path="*" element={<NotFound />} />
        </Route>
      </Routes>
    </StoreProvider>
  );
}
