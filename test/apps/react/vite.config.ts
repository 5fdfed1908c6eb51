// A shop's Vite config for React 19: nothing to set for <svc-checkout> itself. Vite compiles JSX itself (automatic
// runtime); @vitejs/plugin-react would add Fast Refresh for development only.
import { defineConfig } from 'vite';

const shop = process.env.SHOP_URL ?? 'http://127.0.0.1:3000'; // the shop's server (shop.mjs)

export default defineConfig({
  base: './',
  // docs/frameworks.md, "An app's checkout, from the shop's server": in development the shop's paths go to its
  // server, and Vite's own CORS, which would answer the isolated frame's preflight and refuse it, is off.
  server: { cors: false, proxy: { '/checkout': shop, '/shop': shop } },
});
