// A shop's Vite config for Vue 3: the one setting <svc-checkout> needs is telling Vue's template compiler that it
// is a custom element, not a Vue component it should resolve (else Vue warns "Failed to resolve component").
import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'vite';

export default defineConfig({
  base: './',
  plugins: [vue({ template: { compilerOptions: { isCustomElement: (tag) => tag === 'svc-checkout' } } })],
});
