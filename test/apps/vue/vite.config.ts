// A shop's Vite config for Vue 3: the one setting <svc-checkout> needs is telling Vue's template compiler that it
// is a custom element, not a Vue component it should resolve (else Vue warns "Failed to resolve component").
import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'vite';

const shop = process.env.SHOP_URL ?? 'http://127.0.0.1:3000'; // the shop's server (shop.mjs)

export default defineConfig({
  base: './',
  plugins: [vue({ template: { compilerOptions: { isCustomElement: (tag) => tag === 'svc-checkout' } } })],
  // docs/frameworks.md, "An app's checkout, from the shop's server": in development the shop's paths go to its
  // server, and Vite's own CORS, which would answer the isolated frame's preflight and refuse it, is off.
  server: { cors: false, proxy: { '/checkout': shop, '/shop': shop } },
});
