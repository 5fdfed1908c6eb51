// A shop's Vite config for Svelte 5: nothing to set for <svc-checkout>; Svelte renders any element with a dash
// in its name as a custom element.
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vite';

const shop = process.env.SHOP_URL ?? 'http://127.0.0.1:3000'; // the shop's server (shop.mjs)

export default defineConfig({
  base: './',
  plugins: [svelte()],
  // docs/frameworks.md, "An app's checkout, from the shop's server": in development the shop's paths go to its
  // server, and Vite's own CORS, which would answer the isolated frame's preflight and refuse it, is off.
  server: { cors: false, proxy: { '/checkout': shop, '/shop': shop } },
});
