// `npm run build`, and `npm start` when dist/ is stale: what ships, built into a folder of its own (.dist-build-<pid>/)
// and then put in dist/'s place. A shop, a sandbox or a test running from dist/ meanwhile never finds it half-built or
// gone: a build that began with `rm -rf dist` once left a shop started beside it without dist/cdn/svc-checkout.js for
// 10–20 s. The package runs no script of its own when installed or packed (no `prepare`: a consumer never needs it,
// and npm warns of it): `npm run build` before `npm pack`, as the README says.
//
//   node scripts/build.mjs             build, then swap
//   node scripts/build.mjs --if-stale  nothing when dist/ is newer than every source (`npm start`: the demo's kit serves
//                                      dist/cdn, built once)
//
// The steps, in order: the library and its types (tsc), the CDN build (build-cdn.mjs), the custom elements manifest
// (cem, whose config reads the built attribute table) and the editor data and JSX typings made from it
// (build-integrations.mjs). Each writes under SVC_BUILD_DIR, naming what it writes as it will be named in dist/.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertDistFresh } from './dist-is-fresh.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);

if (process.argv.includes('--if-stale')) {
  const fresh = await assertDistFresh(root).then(
    () => true,
    () => false,
  );
  if (fresh) {
    console.log('dist/ is newer than src/: nothing to build (npm run build builds anyway)');
    process.exit(0);
  }
}

/** The JavaScript file behind a package's command, run with this Node (no shell, on every platform). */
function binOf(pkg, name) {
  const manifestPath = require.resolve(`${pkg}/package.json`);
  const { bin } = JSON.parse(readFileSync(manifestPath, 'utf8'));
  return join(dirname(manifestPath), typeof bin === 'string' ? bin : bin[name]);
}

const buildDir = `.dist-build-${process.pid}`;
const env = { ...process.env, SVC_BUILD_DIR: buildDir };
const steps = [
  [binOf('typescript', 'tsc'), '-p', 'tsconfig.build.json', '--outDir', buildDir],
  ['scripts/build-cdn.mjs'],
  [binOf('@custom-elements-manifest/analyzer', 'cem'), 'analyze'],
  ['scripts/build-integrations.mjs'],
];

await rm(join(root, buildDir), { recursive: true, force: true });
for (const args of steps) {
  const run = spawnSync(process.execPath, args, { cwd: root, env, stdio: 'inherit' });
  if (run.status !== 0) {
    await rm(join(root, buildDir), { recursive: true, force: true });
    console.error(`build: ${args[0]} failed${run.status === null ? ` (${run.signal})` : ` (exit ${run.status})`}; dist/ is left as it was`);
    process.exit(run.status ?? 1);
  }
}

// Two renames: dist/ is missing for the moment between them only, never for the length of a build.
const old = `.dist-old-${process.pid}`;
const hadDist = await rename(join(root, 'dist'), join(root, old)).then(
  () => true,
  (error) => {
    if (error.code === 'ENOENT') return false;
    throw error;
  },
);
await rename(join(root, buildDir), join(root, 'dist'));
if (hadDist) await rm(join(root, old), { recursive: true, force: true });
console.log('dist/ built');
