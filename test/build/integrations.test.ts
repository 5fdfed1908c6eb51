// The editor data and JSX typings (scripts/build-integrations.mjs) say what custom-elements.json says, and
// follow it when the element changes: a new attribute or event reaches every file without editing the script.
import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error a plain JavaScript module without types
import { assertDistFresh } from '../../scripts/dist-is-fresh.mjs';
// @ts-expect-error a plain JavaScript module without types
import { integrationFiles } from '../../scripts/build-integrations.mjs';

const root = new URL('../../', import.meta.url).pathname;

interface Named {
  name: string;
  description?: string;
}
interface Declaration {
  name: string;
  tagName?: string;
  attributes: (Named & { fieldName?: string })[];
  members: (Named & { kind: string; static?: boolean; privacy?: string; attribute?: string; type?: { text: string } })[];
  events: (Named & { type?: { text: string } })[];
  slots: Named[];
  cssParts: Named[];
  cssProperties: Named[];
}
interface Manifest {
  modules: { path: string; declarations?: Declaration[] }[];
}

let pkg: Record<string, unknown> & { customElements: string };
let manifest: Manifest;
let element: Declaration;

beforeAll(async () => {
  await assertDistFresh();
  pkg = JSON.parse(await readFile(`${root}package.json`, 'utf8'));
  manifest = JSON.parse(await readFile(`${root}${pkg.customElements}`, 'utf8'));
  element = manifest.modules.flatMap((module) => module.declarations ?? []).find((item) => item.tagName === 'svc-checkout')!;
});

const json = async (path: string) => JSON.parse(await readFile(`${root}${path}`, 'utf8'));
const withDescription = (items: Named[]) => items.map((item) => ({ name: item.name, description: item.description ?? '' }));

describe('the editor data, as built', () => {
  it('VS Code HTML data: the tag with every attribute of the manifest and its description', async () => {
    const data = await json('dist/vscode.html-data.json');
    expect(data.version).toBe(1.1);
    const tag = data.tags.find((item: Named) => item.name === 'svc-checkout');
    expect(tag.description.value).toContain(element.events[0]!.name);
    expect(tag.attributes.map((attribute: Named) => attribute.name)).toEqual(element.attributes.map((attribute) => attribute.name));
    for (const attribute of element.attributes.filter((item) => item.description)) {
      const entry = tag.attributes.find((item: Named) => item.name === attribute.name);
      // Written on one line for the editor's hover.
      const squeeze = (text: string) => text.replace(/\s+/g, ' ');
      expect(squeeze(entry.description.value)).toContain(squeeze(attribute.description as string));
    }
  });

  it('VS Code CSS data: every CSS custom property and part', async () => {
    const data = await json('dist/vscode.css-data.json');
    expect(data.properties.map((property: Named) => property.name)).toEqual(element.cssProperties.map((property) => property.name));
    expect(data.pseudoElements.map((part: Named) => part.name)).toEqual(element.cssParts.map((part) => `::part(${part.name})`));
  });

  it('web-types, named by package.json: attributes, properties, typed events, slots, parts and CSS properties', async () => {
    const data = await json(pkg['web-types'] as string);
    expect(data.name).toBe(pkg.name);
    expect(data.version).toBe(pkg.version);
    const tag = data.contributions.html.elements.find((item: Named) => item.name === 'svc-checkout');
    expect(tag.attributes.map((attribute: Named) => attribute.name)).toEqual(element.attributes.map((attribute) => attribute.name));
    expect(tag.js.events.map(({ name, description }: Named) => ({ name, description }))).toEqual(withDescription(element.events));
    expect(tag.js.events.find((event: Named) => event.name === 'svc-pay-result').type).toEqual({ module: 'svc-checkout', name: 'SvcPayResultEvent' });
    expect(tag.slots).toEqual(withDescription(element.slots));
    expect(tag.css.parts).toEqual(withDescription(element.cssParts));
    expect(tag.js.properties.map((property: Named) => property.name)).toEqual(
      expect.arrayContaining(['payAmount', 'payParams', 'userInfo', 'strings']),
    );
    expect(tag.js.properties.map((property: Named) => property.name)).not.toContain('isSandBox'); // static
    expect(data.contributions.css.properties).toEqual(withDescription(element.cssProperties));
  });
});

describe('the generator follows the manifest', () => {
  /** The manifest with one more attribute (as the element would declare it) and one more event. */
  function grown(): Manifest {
    const copy: Manifest = structuredClone(manifest);
    const declaration = copy.modules.flatMap((module) => module.declarations ?? []).find((item) => item.tagName === 'svc-checkout')!;
    declaration.members.push({
      kind: 'field',
      name: 'checkoutToken',
      privacy: 'public',
      attribute: 'checkout-token',
      type: { text: 'string | undefined' },
      description: 'A one-time token of this checkout.',
    });
    declaration.attributes.push({ name: 'checkout-token', fieldName: 'checkoutToken', description: 'A one-time token of this checkout.' });
    declaration.events.push({ name: 'svc-extra', description: 'Something more happened.', type: { text: 'SvcExtraEvent' } });
    return copy;
  }

  it('puts a new attribute, its property and a new event in every file', () => {
    const files: Map<string, string> = integrationFiles(grown(), pkg);
    expect(files.get('dist/vscode.html-data.json')).toContain('"checkout-token"');
    expect(files.get('dist/web-types.json')).toContain('"checkoutToken"');
    expect(files.get('dist/web-types.json')).toContain('"svc-extra"');
    const expected: Record<string, string[]> = {
      react: [`checkoutToken?: SvcCheckout['checkoutToken'];`, `'checkout-token'?: AttributeValue<SvcCheckout['checkoutToken']>;`, `'onsvc-extra'?:`],
      preact: [`checkoutToken?: SvcCheckout['checkoutToken'];`, `'checkout-token'?:`, `'onsvc-extra'?:`],
      solid: [`'prop:checkoutToken'?:`, `'attr:checkout-token'?:`, `'checkout-token'?:`, `'on:svc-extra'?:`],
      vue: [`checkoutToken?: SvcCheckout['checkoutToken'] | AttributeValue<SvcCheckout['checkoutToken']>;`, `onSvcExtra?:`],
      svelte: [`checkoutToken?:`, `'checkout-token'?:`, `'onsvc-extra'?:`, `'on:svc-extra'?:`],
    };
    for (const [framework, lines] of Object.entries(expected)) {
      const typings = files.get(`dist/jsx/${framework}.d.ts`)!;
      for (const line of lines) expect(typings, framework).toContain(line);
      expect(typings, framework).toContain('A one-time token of this checkout.');
      // SvcExtraEvent is not exported by the package: the handler takes the element's HTMLElementEventMap entry.
      expect(typings, framework).toContain(`EventOf<'svc-extra'>`);
      expect(typings, framework).not.toMatch(/import type \{[^}]*SvcExtraEvent/);
    }
  });

  it('writes what the build wrote for the manifest as it is', async () => {
    const files: Map<string, string> = integrationFiles(manifest, pkg);
    for (const [path, text] of files) expect(await readFile(`${root}${path}`, 'utf8'), path).toBe(text);
  });

  it('refuses an element that the package entry does not export: the typings could not import it', () => {
    const copy: Manifest = structuredClone(manifest);
    copy.modules.flatMap((module) => module.declarations ?? []).find((item) => item.tagName === 'svc-checkout')!.name = 'Hidden';
    expect(() => integrationFiles(copy, pkg)).toThrow(/not exported by dist\/element\/index\.js/);
  });
});
