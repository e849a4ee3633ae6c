import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { App } from './App';
import { SessionGate } from './components/SessionGate';
import { startFirstStats } from './state/store-context';
import '@tailscope/charts/styles.css';

// The statistics, and the route's first questions after them, beside the session check.
startFirstStats();
const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');
createRoot(root).render(
  <StrictMode>
    <SessionGate>
      <BrowserRouter>
        <App />
      </BrowserRouter>
    </SessionGate>
  </StrictMode>,
);
