import { defineConfig } from 'vite';
import { demoBackend } from './demo/vite-plugin.js';

// `npm start`: the demo merchant page (index.html, demo/) with the sandbox and the merchant kit mounted in the
// dev server by the demo's plugin.
export default defineConfig({
  plugins: [demoBackend({ basePath: '/api/checkout' })],
  // No CORS of Vite's own: it would answer the preflight of the isolated fields' calls (from an opaque origin, Origin:
  // null) before the kit does, and refuse them (docs/isolated-fields.md, "Behind a CORS middleware").
  server: { host: 'localhost', port: 5173, cors: false },
  build: { outDir: 'build/demo' },
});
