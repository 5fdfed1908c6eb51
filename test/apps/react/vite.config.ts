// A shop's Vite config for React 19: nothing to set for <svc-checkout>. Vite compiles JSX itself (automatic
// runtime); @vitejs/plugin-react would add Fast Refresh for development only.
import { defineConfig } from 'vite';

export default defineConfig({
  base: './',
});
