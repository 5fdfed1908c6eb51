// The shop `npx svc-checkout init` writes (dist/scaffold/init.js), run as its own server.mjs against a stack's
// sandbox, for a browser test (web-test-runner.config.mjs: `svc-init-shop`) or a screenshot (screenshots.mjs) to
// open. Its two dependencies are this repository's, as npm would install them: express, and svc-checkout itself
// (its package.json's exports, dist/).
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { initShop } from '../dist/scaffold/init.js';

const repository = fileURLToPath(new URL('../', import.meta.url));
const running = new Set();

/** Starts a shop for `sandbox` (its URL and merchant): `{ url }`, the shop's page, once it listens. */
export async function startInitShop(sandbox) {
  const folder = await mkdtemp(join(tmpdir(), 'svc-init-page-'));
  const shop = { folder, child: undefined };
  running.add(shop);
  await initShop(folder, { name: 'Nile Coffee' });
  await mkdir(join(folder, 'node_modules'));
  await symlink(join(repository, 'node_modules', 'express'), join(folder, 'node_modules', 'express'), 'dir');
  await symlink(repository, join(folder, 'node_modules', 'svc-checkout'), 'dir');
  const merchant = sandbox.merchants[0];
  const env = { PATH: process.env.PATH ?? '', SVC_MERCHANT_ID: merchant.merchantId, SVC_PRIVATE_KEY: merchant.privateKey, SVC_BASE_URL: sandbox.url, SVC_SANDBOX: '1', PORT: '0' };
  const child = spawn(process.execPath, ['server.mjs'], { cwd: folder, env, stdio: ['ignore', 'pipe', 'pipe'] });
  shop.child = child;
  const url = await new Promise((resolve, reject) => {
    let said = '';
    const timer = setTimeout(() => reject(new Error(`the init shop did not start: ${said}`)), 20_000);
    const read = (chunk) => {
      said += chunk;
      const listening = /listening on (http:\/\/\S+\/)/.exec(said);
      if (listening) {
        clearTimeout(timer);
        resolve(listening[1]);
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the init shop exited (${code}): ${said}`));
    });
  });
  return { url };
}

/** Stops every shop started here (by its own process) and deletes its folder. */
export async function stopInitShops() {
  await Promise.all(
    [...running].map(async (shop) => {
      running.delete(shop);
      if (shop.child && shop.child.exitCode === null) {
        const exited = new Promise((resolve) => shop.child.once('exit', resolve));
        shop.child.kill();
        await exited;
      }
      await rm(shop.folder, { recursive: true, force: true });
    }),
  );
}
