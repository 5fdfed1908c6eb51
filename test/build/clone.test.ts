// The README's commands for a clone of this repository, run as written in a fresh clone (issue 47, point 3): the
// repository as committed (git clone of this one's HEAD) in a temporary folder, each command once in the order the
// README gives it, in a shell:
//
//   npm ci && npm run build && npm pack   (five-minute guide: the package for a project, until it is on npm)
//   npm ci && npm start                   ("For working on this repository": the demo answers its page)
//   npx svc-sandbox                       (in a clone: runs the sandbox the build made)
//
// Declared, and nothing else: npm's cache preferred (npm_config_prefer_offline: the machine's cache holds what this
// repository's `npm ci` fetched), a command run already (the second `npm ci`) not run again, the sandbox given
// `--port 0 --quiet -- <command>` (this machine is shared), and `npm test` not run: it is the suite this test is in.
// It takes about a minute on two cores: npm ci about 15 s, the build about 20 s, the demo's first page a few seconds.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error a plain JavaScript module without types
import { fencedBlocks, root } from '../../scripts/doc-samples.mjs';

const run = promisify(execFile);
/** The lifecycle scripts npm runs by itself, at install (of the package or of a project it is in) or at pack and publish. */
const LIFECYCLE = ['preinstall', 'install', 'postinstall', 'prepublish', 'preprepare', 'prepare', 'postprepare', 'prepack', 'postpack', 'prepublishOnly', 'publish', 'postpublish', 'dependencies'];

let folder: string;
let clone: string;
const env = { ...process.env, npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'svc-clone-'));
  clone = join(folder, 'svc-checkout');
  await run('git', ['clone', '--quiet', root, clone], { timeout: 60_000 });
});
afterAll(() => rm(folder, { recursive: true, force: true }));

/** The README's commands for a clone, as written. */
async function readmeCommands() {
  const readme = await readFile(join(root, 'README.md'), 'utf8');
  const pack = /`(npm ci && npm run build && npm pack)` in\s+the clone writes `(svc-checkout-[\d.]+\.tgz)`/.exec(readme);
  const working = /^For working on this repository:\n\n([\s\S]*?)^`npm start`/m.exec(readme)?.[1];
  const block = working ? (fencedBlocks(working) as { language: string; code: string }[])[0] : undefined;
  const lines = block ? block.code.split('\n').map((line) => line.replace(/#.*$/, '').trim()).filter(Boolean) : [];
  return { pack: pack?.[1], tarball: pack?.[2], lines, sandbox: /In a clone, `(npx svc-sandbox)` runs the sandbox/.test(readme) };
}

/** Runs `command` in the clone as a terminal would, the commands of it a `&&` chain, each once. */
const done = new Set<string>();
async function inClone(command: string, timeout = 240_000): Promise<void> {
  for (const step of command.split('&&').map((part) => part.trim())) {
    if (done.has(step)) continue;
    await run('sh', ['-c', step], { cwd: clone, env, timeout, maxBuffer: 16 * 1024 * 1024 });
    done.add(step);
  }
}

describe('the README’s commands in a fresh clone', () => {
  it('packs the package after npm ci and the build, and the package runs no script of its own when installed or packed', async () => {
    const { pack, tarball } = await readmeCommands();
    expect(pack, 'the README says how to pack the package in a clone').toBeDefined();
    await inClone(pack!);
    const manifest = JSON.parse((await run('tar', ['-xzOf', join(clone, tarball!), 'package/package.json'], { maxBuffer: 1024 * 1024 })).stdout);
    expect(Object.keys(manifest.scripts ?? {}).filter((name) => LIFECYCLE.includes(name))).toEqual([]);
    // What the five-minute guide installs from it: the built files, the command.
    const listed = (await run('tar', ['-tzf', join(clone, tarball!)], { maxBuffer: 16 * 1024 * 1024 })).stdout.split('\n');
    expect(listed).toContain('package/dist/cdn/svc-checkout.js');
    expect(listed).toContain('package/dist/scaffold/init.js');
  }, 300_000);

  it('starts the demo with npm start, and runs the built sandbox with npx svc-sandbox', async () => {
    const { lines, sandbox } = await readmeCommands();
    expect(lines).toEqual(['npm ci && npm start', 'npm test']);
    const [setup] = lines as [string];
    await inClone(setup.replace(/\s*&&\s*npm start$/, ''));
    const demo = spawn('sh', ['-c', 'npm start'], { cwd: clone, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let printed = '';
    demo.stdout!.on('data', (chunk) => (printed += chunk));
    demo.stderr!.on('data', (chunk) => (printed += chunk));
    try {
      const end = Date.now() + 120_000;
      let url: string | undefined;
      while (!(url = /Local:\s+(http:\/\/\S+)/.exec(printed.replace(/\x1b\[[0-9;]*m/g, ''))?.[1]) && Date.now() < end && demo.exitCode === null) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(url, printed).toBeDefined();
      const page = await (await fetch(url!)).text();
      expect(page).toContain('/demo/main.ts');
      // The demo's kit serves the element's files from the build npm start made.
      const script = await fetch(new URL('/api/checkout/svc-checkout.js', url));
      expect(script.status, printed).toBe(200);
    } finally {
      if (demo.pid && demo.exitCode === null) process.kill(-demo.pid, 'SIGTERM');
    }

    expect(sandbox, 'the README says npx svc-sandbox runs in a clone').toBe(true);
    const { stdout } = await run('npx', ['svc-sandbox', '--port', '0', '--quiet', '--', process.execPath, '-e', "console.log('the shop ran')"], { cwd: clone, env, timeout: 60_000 });
    expect(stdout).toContain('the shop ran');
  }, 300_000);
});
