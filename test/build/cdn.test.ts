// The CDN file is the element alone: Lit inside, no bare import, and nothing of the kit or the sandbox.
import { readdir, readFile } from 'node:fs/promises';
import { DEFAULT_MERCHANT } from '../../src/sandbox/index.js';
import { beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error a plain JavaScript module without types
import { assertDistFresh } from '../../scripts/dist-is-fresh.mjs';

// These run the built package: never an old one.
beforeAll(() => assertDistFresh());

const root = new URL('../../', import.meta.url).pathname;

describe('dist/cdn/svc-checkout.js', () => {
  it('is built from the element, the session, core and Lit only', async () => {
    const meta = JSON.parse(await readFile(`${root}build/cdn.meta.json`, 'utf8'));
    const inputs = Object.keys(meta.inputs);
    expect(inputs.filter((input) => /src\/(server|sandbox|react)\//.test(input))).toEqual([]);
    expect(inputs.filter((input) => input.startsWith('src/')).every((input) => /^src\/(element|checkout|core)\//.test(input))).toBe(true);
    expect(inputs.some((input) => input.includes('node_modules/lit-html/'))).toBe(true);
    expect(inputs.some((input) => input.includes('/development/'))).toBe(false);
  });

  it('imports nothing and holds no server-side code', async () => {
    const bundle = await readFile(`${root}dist/cdn/svc-checkout.js`, 'utf8');
    expect(bundle).not.toMatch(/\bimport\s*(?:[\w{}*\s,]+from\s*)?["'](?!\.)/);
    expect(bundle).not.toMatch(/node:|createHmac|subtle\.sign|svc-sandbox|createSandbox|MerchantId/);
    expect(bundle).toMatch(/customElements\.define\(\s*["']svc-checkout["']/);
  });

  it('holds no private key: searched in the CDN file and in every module a browser loads', async () => {
    const browserFiles = ['dist/cdn/svc-checkout.js'];
    for (const folder of ['dist/element', 'dist/core', 'dist/react']) {
      for (const entry of await readdir(`${root}${folder}`, { recursive: true })) {
        if (String(entry).endsWith('.js')) browserFiles.push(`${folder}/${entry}`);
      }
    }
    expect(browserFiles.length).toBeGreaterThan(20);
    for (const file of browserFiles) {
      const text = await readFile(`${root}${file}`, 'utf8');
      expect(text, file).not.toContain(DEFAULT_MERCHANT.privateKey);
      expect(text, file).not.toMatch(/private-key-|privateKey\s*[:=]\s*["'`][^"'`]/);
    }
  });
});
