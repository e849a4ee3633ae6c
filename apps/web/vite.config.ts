import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The API serves dist/ (apps/api/src/routes/web.ts); in development `vite` proxies /api to it.
export default defineConfig({
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true, target: 'es2022' },
  worker: { format: 'es' },
  server: { proxy: { '/api': 'http://127.0.0.1:8080' } },
});
