// A shop's Vite config for Svelte 5: nothing to set for <svc-checkout>; Svelte renders any element with a dash
// in its name as a custom element.
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vite';

export default defineConfig({
  base: './',
  plugins: [svelte()],
});
