/**
 * The package as npm packs it, for the tests that install it as a merchant would (in a fresh folder, with
 * `npm install <tarball>`). Packed once and shared: by the test files of one run (a lock folder: the first to come
 * packs, the others wait), and by later runs while nothing it packs has changed.
 */
import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const root = new URL('../../', import.meta.url).pathname;
const run = promisify(execFile);

/** The newest modification time under `path` (a file or a folder), 0 when it is not there. */
async function newest(path: string): Promise<number> {
  const info = await stat(path).catch(() => undefined);
  if (!info) return 0;
  if (!info.isDirectory()) return info.mtimeMs;
  let latest = info.mtimeMs;
  for (const entry of await readdir(path)) latest = Math.max(latest, await newest(join(path, entry)));
  return latest;
}

export async function packedTarball(): Promise<string> {
  const { version } = JSON.parse(await readFile(`${root}package.json`, 'utf8')) as { version: string };
  const folder = join(root, 'build', 'pack');
  const tarball = join(folder, `svc-checkout-${version}.tgz`);
  const lock = join(folder, '.packing');
  await mkdir(folder, { recursive: true });
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      await mkdir(lock);
      break;
    } catch {
      // Another file packs: wait; a lock left by a run that died is taken over after two minutes.
      const since = await stat(lock).then((info) => info.mtimeMs, () => 0);
      if (Date.now() - since > 120_000) await rm(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error('waited two minutes for npm pack');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  try {
    const packed = ['dist', 'bin', 'docs', 'package.json', 'README.md', 'llms.txt', 'LICENSE'].map((path) => newest(join(root, path)));
    const sources = Math.max(...(await Promise.all(packed)));
    if ((await newest(tarball)) <= sources) {
      // The build is checked fresh by the tests that call this; prepare would only say so again.
      await run('npm', ['pack', '--ignore-scripts', '--pack-destination', folder], { cwd: root, timeout: 120_000 });
    }
    return tarball;
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

/** `npm install` in `folder`, from npm's cache where it can (express, lit: what `npm ci` of this repository fetched). */
export async function npmInstall(folder: string, specs: string[]): Promise<void> {
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', ...specs], { cwd: folder, timeout: 180_000 });
}
