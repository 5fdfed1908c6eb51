// How the CDN file is built, shared by scripts/build-cdn.mjs and by `npm run bench`, which builds its floor
// element (bench/floor/) the same way. No `conditions`: esbuild then resolves Lit's production build.
import { minifyCssTemplates } from './minify-css-templates.mjs';

/** esbuild options of dist/cdn/svc-checkout.js, less its entry point and output. */
export function cdnBuildOptions({ minifyCss = true } = {}) {
  return {
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'eof',
    // Arabic as UTF-8 rather than \u escapes: a module script is always decoded as UTF-8.
    charset: 'utf8',
    plugins: minifyCss ? [minifyCssTemplates()] : [],
  };
}
