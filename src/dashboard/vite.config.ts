import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/**
 * Builds the dashboard into dist/dashboard, which the API process serves at `/`
 * (src/http/dashboard.ts). Run from the repository root: `vite build --config src/dashboard/vite.config.ts`.
 * `root` is this folder whatever the working directory, so index.html and the outDir resolve here.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  plugins: [react()],
  build: {
    outDir: '../../dist/dashboard',
    emptyOutDir: true,
    // The served CSP allows no inline script or style: keep every asset a file of its own.
    assetsInlineLimit: 0,
  },
  server: {
    // `npm run dashboard:dev`: the API runs on :3000 (`npm run dev`); the dashboard calls it same-origin.
    proxy: { '/v1': 'http://localhost:3000' },
  },
});
