// The npm build is tree-shakable: `sideEffects` names the files that register elements, so a page that imports
// only the headless session, or one function of it, gets that and what it uses — never Lit or the element.
import { describe, expect, it } from 'vitest';
// @ts-expect-error a plain JavaScript module without types
import { assertDistFresh } from '../../scripts/dist-is-fresh.mjs';
// @ts-expect-error a plain JavaScript module without types
import { pageBundle } from '../../scripts/page-bundle.mjs';

interface Bundle {
  minified: number;
  brotli: number;
  files: string[];
}

const bundle = (code: string): Promise<Bundle> => pageBundle(code);
const fromElementOrLit = (files: string[]) => files.filter((file) => /(^|\/)(lit|lit-html|lit-element|@lit)\/|dist\/element\//.test(file));

describe('a page importing part of the package', () => {
  it('with the headless session only, pulls no Lit and nothing of the element', async () => {
    await assertDistFresh();
    const page = await bundle("import { CheckoutSession } from 'svc-checkout/checkout'; new CheckoutSession();");
    expect(page.files).toContain('dist/checkout/session.js');
    expect(fromElementOrLit(page.files)).toEqual([]);
  });

  it('with one function, keeps only what it uses (openStatusStream: not the session, not the validator)', async () => {
    const page = await bundle("import { openStatusStream } from 'svc-checkout/checkout'; console.log(openStatusStream);");
    expect(page.files).toContain('dist/checkout/status-stream.js');
    expect(page.files).not.toContain('dist/checkout/session.js');
    expect(page.files).not.toContain('dist/core/validate.js');
    const session = await bundle("import { CheckoutSession } from 'svc-checkout/checkout'; new CheckoutSession();");
    expect(page.minified).toBeLessThan(session.minified / 4);
  });

  it('with the element, registers it (its files keep their side effects)', async () => {
    const page = await bundle("import 'svc-checkout';");
    expect(page.files).toContain('dist/element/define.js');
    expect(fromElementOrLit(page.files).length).toBeGreaterThan(10);
  });
});

/** All the CDN build's scripts, as one text. */
async function cdnScripts(): Promise<string> {
  await assertDistFresh();
  const { readFile, readdir } = await import('node:fs/promises');
  const files = [
    ...(await readdir('dist/cdn')).filter((file) => file.endsWith('.js')).map((file) => `dist/cdn/${file}`),
    ...(await readdir('dist/cdn/chunks')).filter((file) => file.endsWith('.js')).map((file) => `dist/cdn/chunks/${file}`),
  ];
  return (await Promise.all(files.map((file) => readFile(file, 'utf8')))).join('\n');
}

describe("the CDN build's create rules (issue 49 point 5)", () => {
  it("carries the payer's rows of a create and none of the merchant's: those are the kit's to check", async () => {
    const scripts = await cdnScripts();
    // The payer's: the serial number, the bank details, the reference code's contacts.
    for (const expected of ['letters, digits or "-"', '6 to 34 letters or digits', 'a phone number of 7 to 15 digits', 'an email address']) {
      expect(scripts.includes(expected), expected).toBe(true);
    }
    // The merchant's: the amount, the currency, the expiry; and the order's rows of a code step's call (its country,
    // number and reference, which the kit told the element): only the payer's code is checked (PAYER_CODE_RULES).
    for (const expected of [
      'a whole number of minor units greater than 0',
      'three uppercase letters, e.g. EGP',
      'whole minutes from 1 to',
      'two uppercase letters, e.g. EG',
      'letters, digits, ".", "_", ":" or "-"',
    ]) {
      expect(scripts.includes(expected), expected).toBe(false);
    }
    // A rule over several fields comes with the table that has it (src/core/groups.ts): the date of birth's, not the
    // kit's "orderNo or reference is required".
    expect(scripts).toMatch(/must form a real calendar date/);
    expect(scripts).not.toMatch(/join\(" or "\)\} is required`/);
  });
});

describe("the CDN build's events (issue 49 point 5)", () => {
  it("carries no React prop of an event: the React wrapper derives them from the events' names (reactPropOf)", async () => {
    const scripts = await cdnScripts();
    expect(scripts).toContain('svc-pay-result');
    expect(scripts).not.toContain('onSvc');
  });
});
