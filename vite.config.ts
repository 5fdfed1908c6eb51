import { defineConfig } from 'vite';
import { demoBackend } from './demo/vite-plugin.js';

// `npm start`: the demo merchant page (index.html, demo/) with the sandbox and the merchant kit mounted in the
// dev server by the demo's plugin.
export default defineConfig({
  plugins: [demoBackend({ basePath: '/api/checkout' })],
  server: { host: 'localhost', port: 5173 },
  build: { outDir: 'build/demo' },
});
