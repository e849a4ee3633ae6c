import { Route, Routes } from 'react-router';
import { Shell } from './components/Shell';
import { StoreProvider } from './state/store-context';
import { Overview } from './pages/Overview';
import { Fanouts } from './pages/Fanouts';
import { Stragglers } from './pages/Stragglers';
import { WhatIf } from './pages/WhatIf';
import { TracePage } from './pages/TracePage';
import { NotFound } from './pages/NotFound';

export function App() {
  return (
    <StoreProvider>
      <Routes>
        <Route element={<Shell />}>
          <Route index element={<Overview />} />
          <Route path="fanouts" element={<Fanouts />} />
          <Route path="stragglers" element={<Stragglers />} />
          <Route path="whatif" element={<WhatIf />} />
          <Route path="traces/:traceId" element={<TracePage />} />
          <Route path="*" element={<NotFound />} />
        </Route>
      </Routes>
    </StoreProvider>
  );
}
