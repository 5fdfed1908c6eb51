// The CDN build's byte budget (bytes are deterministic; times are the bench's): over budget, the test fails and
// names the modules that grew since the budget was set (test/build/size-budget.json, scripts/size-budget.mjs).
import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error a plain JavaScript module without types
import { assertDistFresh } from '../../scripts/dist-is-fresh.mjs';
// @ts-expect-error a plain JavaScript module without types
import { BUDGET_FILE, cdnSizes, firstFrameFiles, grownModules } from '../../scripts/size-budget.mjs';

const root = new URL('../../', import.meta.url).pathname;

type Sizes = { firstFrame: number; total: number; frame: number; modules: Record<string, number>; later: Record<string, number> };
let sizes: Sizes;
let budget: { firstFrameBrotliBytes: number; totalBrotliBytes: number; frameBrotliBytes: number; modules: Record<string, number> };

beforeAll(async () => {
  await assertDistFresh();
  budget = JSON.parse(await readFile(`${root}${BUDGET_FILE}`, 'utf8'));
  sizes = await cdnSizes();
});

describe('the size budget of the CDN build', () => {
  it('keeps the first frame within its brotli bytes, and names what grew when it does not', () => {
    const grown: string[] = grownModules(sizes.modules, budget.modules);
    expect(
      sizes.firstFrame,
      `the first frame (dist/cdn/svc-checkout.js and its static imports) is ${sizes.firstFrame} B brotli, over its budget of ${budget.firstFrameBrotliBytes} B; grown since the budget was set: ${grown.join(', ') || 'nothing by itself (many small changes)'}`,
    ).toBeLessThanOrEqual(budget.firstFrameBrotliBytes);
  });

  it('keeps all the files together within theirs', () => {
    expect(sizes.total, `the CDN files are ${sizes.total} B brotli together, over their budget of ${budget.totalBrotliBytes} B`).toBeLessThanOrEqual(budget.totalBrotliBytes);
    // 53 200 B until the session's chunk took in the chunks fetched with it and the browser left a token's claims to
    // the kit (issue 49): 50 680 after, the build as it is plus room for its chunks' hashes; 50 314 since the element
    // checks only the payer's rows of a create (issue 49 point 5: the merchant's rows are the kit's); 50 300 since the
    // chunks' hashes are counted as 000000 (scripts/size-budget.mjs: no room for dice); 50 310 since a page no longer
    // takes its own refused attempt for another device's order (+13 B: a payer was stranded); 49 800 since what was
    // decided twice is decided once (issue 49 point 5: a code step's rows, the rules over several fields, the words of
    // a message and of where a code went, the events' React props, the paths of a wire field; words no part read);
    // 50 370 since the reference code form knows the payer's contact the shop has on file (issue 46, +462 B
    // measured, none of it in the first frame: the sentence per channel in English and Arabic, the form's check of an
    // empty contact, where the code went), a page looks up the attempt the kit's record names behind the form, which
    // stays as the payer has it (+31 B net, its refused-attempt guard gone: another device's order at the attempt refused
    // here was never found), and each documented part can be styled from outside (+15 B: a step, the result and the
    // offer export the parts the docs promised); 50 440 since a lookup behind the form is never shared with a create's
    // and an attempt it found empty is asked about again after 30 s or when the payer comes back, not at each light check
    // (+72 B: a second reader found a payer told "could not reach the shop" about an order that was made, and 20
    // service queries a minute); 50 455 since the contact on file is used whole or not at all (issue 46, +15 B: the
    // form reads whether the payer typed any of the contact before it lets the fields on file be left empty; a typed
    // name went with the shop's address); 50 490 since a code refused before it is sent is said aloud, as one the kit
    // refuses is (+39 B, most of it brotli's reshuffle of the engine chunk: "every refusal is said"). A feature pays for
    // its bytes here, or says in its commit why it cannot.
    expect(budget.totalBrotliBytes).toBeLessThanOrEqual(50_490);
  });

  it('keeps the isolated frame\'s page, its script and styles inside, within its own', () => {
    expect(sizes.frame, `dist/cdn/svc-checkout-frame.html is ${sizes.frame} B brotli, over its budget of ${budget.frameBrotliBytes} B`).toBeLessThanOrEqual(budget.frameBrotliBytes);
    // 5.0 kB until the frame showed the payer what they pay (issue 44): 5.5 kB since, a ceiling as firm as the first;
    // 5 390 since a rule over several fields carries its own check (the frame's tables have none of the kit's).
    expect(budget.frameBrotliBytes).toBeLessThanOrEqual(5_390);
  });

  it('is the goal itself: 15 kB brotli, never raised', () => {
    expect(budget.firstFrameBrotliBytes).toBeLessThanOrEqual(15_000);
    // 14 950 B until the entry named two chunks fewer (issue 49): 14 925 then, the build plus room for the hashes;
    // 14 890 since the hashes are counted as 000000; 14 880 since the catalogs lost three words no part read; 14 840
    // since the attempt notes are read by one reader and a code step's rows are decided once (the entry shares less).
    expect(budget.firstFrameBrotliBytes).toBeLessThanOrEqual(14_840);
  });

  it('leaves out of the first frame what it does not show: the session, the rules, the steps, their words, Arabic', () => {
    const first = Object.keys(sizes.modules);
    const later = [
      'src/checkout/session.ts',
      'src/core/rules.ts',
      'src/core/validate.ts',
      'src/checkout/status-stream.ts',
      'src/checkout/fields.ts',
      'src/checkout/code-fields.ts',
      'src/checkout/config-sources.ts',
      'src/checkout/environment.ts',
      'src/element/messages.ts',
      'src/element/parts/steps.ts',
      'src/element/parts/step-part.ts',
      'src/element/parts/result/result.ts',
      'src/element/parts/bank-account-form/bank-account-form.ts',
      'src/element/i18n/en-steps.ts',
      'src/element/i18n/en-bank-account.ts',
      'src/element/i18n/ar.ts',
    ];
    for (const module of later) {
      expect(first, module).not.toContain(module);
      expect(Object.keys(sizes.later), module).toContain(module);
    }
    // Nor anything of the isolated frame: it comes with the form or the step that shows it.
    expect(first.filter((module) => module.startsWith('src/isolated-fields/') || module.endsWith('controllers/isolated-frame.ts'))).toEqual([]);
    expect(first).toContain('src/element/parts/pos-form/pos-form.ts');
    expect(first).toContain('src/element/i18n/en.ts');
    expect(first).toContain('src/checkout/pos-fields.ts');
  });

  it('counts a chunk the entry imports statically, however deep, and never one it imports on demand', () => {
    const meta = {
      outputs: {
        'entry.js': { imports: [{ path: 'shared.js', kind: 'import-statement' }, { path: 'later.js', kind: 'dynamic-import' }] },
        'shared.js': { imports: [{ path: 'deeper.js', kind: 'import-statement' }] },
        'deeper.js': { imports: [{ path: 'shared.js', kind: 'import-statement' }] },
        'later.js': { imports: [{ path: 'shared.js', kind: 'import-statement' }] },
      },
    };
    expect(firstFrameFiles(meta, 'entry.js').sort()).toEqual(['deeper.js', 'entry.js', 'shared.js']);
  });

  it('names the modules that grew, most first, and the new ones', () => {
    expect(grownModules({ 'src/a.ts': 120, 'src/b.ts': 500, 'src/c.ts': 40 }, { 'src/a.ts': 100, 'src/b.ts': 100 })).toEqual([
      'src/b.ts +400 B',
      'src/c.ts +40 B (new)',
      'src/a.ts +20 B',
    ]);
  });
});
