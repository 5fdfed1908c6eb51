// The browser suites, the CLI test and the tests of what ships run the built package: they must not run an
// old one. Fails, saying what to do, when dist/ is missing or older than a source it is built from.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

async function newest(folder) {
  let latest = 0;
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? await newest(path) : (await stat(path)).mtimeMs);
  }
  return latest;
}

export async function assertDistFresh(root = new URL('..', import.meta.url).pathname) {
  const built = ['dist/sandbox/index.js', 'dist/server/index.js', 'dist/react/index.js', 'dist/cdn/svc-checkout.js', 'dist/custom-elements.json'];
  let oldest = Number.POSITIVE_INFINITY;
  for (const file of built) {
    try {
      oldest = Math.min(oldest, (await stat(join(root, file))).mtimeMs);
    } catch {
      throw new Error(`${file} is missing: run \`npm run build\` first (\`npm test\` does).`);
    }
  }
  if ((await newest(join(root, 'src'))) > oldest) {
    throw new Error('dist/ is older than src/: run `npm run build` first (`npm test` does).');
  }
}
