// No step removes a working dist/ in place: `npm start`'s build (--if-stale) builds nothing when dist/ is newer than
// every source, and a build that does run writes into a folder of its own and then takes dist/'s place, so that a shop
// or sandbox running from dist/ meanwhile finds it there throughout.
import { execFile, spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error a plain JavaScript module without types
import { assertDistFresh } from '../../scripts/dist-is-fresh.mjs';

const root = new URL('../../', import.meta.url).pathname;
beforeAll(() => assertDistFresh());

describe('building what ships', () => {
  it('a build --if-stale (npm start) builds nothing when dist/ is newer than the sources: dist/ is the same folder, its files untouched', async () => {
    const before = await stat(`${root}dist`);
    const entry = await stat(`${root}dist/cdn/svc-checkout.js`);
    const { stdout } = await promisify(execFile)(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: root, timeout: 60_000 });
    expect(stdout).toContain('nothing to build');
    expect((await stat(`${root}dist`)).ino).toBe(before.ino);
    expect((await stat(`${root}dist/cdn/svc-checkout.js`)).mtimeMs).toBe(entry.mtimeMs);
  });

  it('npx svc-sandbox in the clone runs the built sandbox, rebuilding nothing', async () => {
    const entry = await stat(`${root}dist/cdn/svc-checkout.js`);
    const { stdout } = await promisify(execFile)('npx', ['--yes', 'svc-sandbox', '--port', '0', '--quiet', '--', process.execPath, '-e', "console.log('the shop ran')"], {
      cwd: root,
      timeout: 120_000,
    });
    expect(stdout).toContain('svc-sandbox listening on http://127.0.0.1:');
    expect(stdout).toContain('the shop ran');
    expect((await stat(`${root}dist/cdn/svc-checkout.js`)).mtimeMs).toBe(entry.mtimeMs);
  }, 150_000);

  it('a build keeps the old dist/ readable until the new one takes its place, and leaves no folder of its own behind', async () => {
    // A copy of the project, so that this build never touches the dist/ the other suites run.
    const copy = await mkdtemp(join(tmpdir(), 'svc-build-'));
    try {
      for (const path of ['src', 'scripts', 'dist', 'package.json', 'tsconfig.json', 'tsconfig.build.json', 'custom-elements-manifest.config.mjs']) {
        await cp(`${root}${path}`, join(copy, path), { recursive: true });
      }
      await symlink(`${root}node_modules`, join(copy, 'node_modules'), 'dir');
      const oldEntry = await readFile(join(copy, 'dist/cdn/svc-checkout.js'), 'utf8');
      // A change to a source, so that the new build differs from the old where a shop would read it.
      const css = join(copy, 'src/element/svc-checkout.css');
      await writeFile(css, `${await readFile(css, 'utf8')}\n/* rebuilt */\n`);

      const build = spawn(process.execPath, ['scripts/build.mjs'], { cwd: copy, stdio: 'ignore' });
      const finished = new Promise<number | null>((resolve) => build.once('exit', resolve));
      let done = false;
      void finished.then(() => (done = true));
      let reads = 0;
      let missesInARow = 0;
      let longestMiss = 0;
      while (!done) {
        // What a running shop reads: its kit's files and the element's entry.
        const found = await Promise.all([readFile(join(copy, 'dist/cdn/svc-checkout.js')), readFile(join(copy, 'dist/server/index.js'))]).then(
          () => true,
          () => false,
        );
        reads++;
        missesInARow = found ? 0 : missesInARow + 1;
        longestMiss = Math.max(longestMiss, missesInARow);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(await finished).toBe(0);
      expect(reads).toBeGreaterThan(20);
      // Two renames apart at most: a poll may land between them once, never twice in a row (rm -rf first: hundreds).
      expect(longestMiss).toBeLessThanOrEqual(1);
      expect(await readFile(join(copy, 'dist/cdn/svc-checkout.css'), 'utf8')).toContain('/* rebuilt */');
      expect(await readFile(join(copy, 'dist/cdn/svc-checkout.js'), 'utf8')).toBe(oldEntry);
      const left = (await promisify(execFile)('ls', ['-a', copy])).stdout.split('\n');
      expect(left.filter((name) => name.startsWith('.dist-'))).toEqual([]);
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  }, 120_000);
});
