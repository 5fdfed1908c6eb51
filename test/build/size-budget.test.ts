// The CDN file's byte budget (bytes are deterministic; times are the bench's): over budget, the test fails and
// names the modules that grew since the budget was set (test/build/size-budget.json, scripts/size-budget.mjs).
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
// @ts-expect-error a plain JavaScript module without types
import { assertDistFresh } from '../../scripts/dist-is-fresh.mjs';
// @ts-expect-error a plain JavaScript module without types
import { BUDGET_FILE, cdnSizes, grownModules } from '../../scripts/size-budget.mjs';

const root = new URL('../../', import.meta.url).pathname;

describe('the size budget of the CDN file', () => {
  it('stays within its brotli bytes, and names what grew when it does not', async () => {
    await assertDistFresh();
    const budget = JSON.parse(await readFile(`${root}${BUDGET_FILE}`, 'utf8'));
    const { brotli, modules } = await cdnSizes();
    const grown: string[] = grownModules(modules, budget.modules);
    expect(brotli, `dist/cdn/svc-checkout.js is ${brotli} B brotli, over its budget of ${budget.brotliBytes} B; grown since the budget was set: ${grown.join(', ') || 'nothing by itself (many small changes)'}`).toBeLessThanOrEqual(budget.brotliBytes);
  });

  it('names the modules that grew, most first, and the new ones', () => {
    expect(grownModules({ 'src/a.ts': 120, 'src/b.ts': 500, 'src/c.ts': 40 }, { 'src/a.ts': 100, 'src/b.ts': 100 })).toEqual([
      'src/b.ts +400 B',
      'src/c.ts +40 B (new)',
      'src/a.ts +20 B',
    ]);
  });
});
