// The CDN file is the element alone: Lit inside, no bare import, and nothing of the kit or the sandbox.
import { readdir, readFile } from 'node:fs/promises';
import { DEFAULT_MERCHANT } from '../../src/sandbox/index.js';
import { beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error a plain JavaScript module without types
import { assertDistFresh } from '../../scripts/dist-is-fresh.mjs';

// These run the built package: never an old one.
beforeAll(() => assertDistFresh());

const root = new URL('../../', import.meta.url).pathname;

/** Every script of the CDN build: the entry and its chunks. */
async function cdnFiles(): Promise<string[]> {
  const entries = await readdir(`${root}dist/cdn`, { recursive: true });
  return entries.map(String).filter((entry) => entry.endsWith('.js')).map((entry) => `dist/cdn/${entry}`);
}

describe('dist/cdn/svc-checkout.js', () => {
  it('is built from the element, the session, core and Lit only', async () => {
    const meta = JSON.parse(await readFile(`${root}build/cdn.meta.json`, 'utf8'));
    const inputs = Object.keys(meta.inputs);
    expect(inputs.filter((input) => /src\/(server|sandbox|react)\//.test(input))).toEqual([]);
    expect(inputs.filter((input) => input.startsWith('src/')).every((input) => /^src\/(element|checkout|core)\//.test(input))).toBe(true);
    expect(inputs.some((input) => input.includes('node_modules/lit-html/'))).toBe(true);
    expect(inputs.some((input) => input.includes('/development/'))).toBe(false);
  });

  it('imports only its own chunks, relative to itself, and holds no server-side code', async () => {
    const files = await cdnFiles();
    expect(files.length).toBeGreaterThan(3);
    for (const file of files) {
      const text = await readFile(`${root}${file}`, 'utf8');
      // No bare import (a page has no import map), no absolute URL: every import is a file beside it.
      expect(text, file).not.toMatch(/\bimport\s*(?:[\w{}*\s,]+from\s*)?["'](?!\.\.?\/)/);
      expect(text, file).not.toMatch(/\bimport\(\s*["'](?!\.\.?\/)/);
      expect(text, file).not.toMatch(/node:|createHmac|subtle\.sign|svc-sandbox|createSandbox|MerchantId/);
    }
    expect(await readFile(`${root}dist/cdn/svc-checkout.js`, 'utf8')).toMatch(/customElements\.define\(\s*["']svc-checkout["']/);
  });

  it('holds no private key: searched in the CDN file and in every module a browser loads', async () => {
    const browserFiles = await cdnFiles();
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
