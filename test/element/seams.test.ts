// The element's parts and controllers take everything from the checkout context (src/element/state.ts,
// `CheckoutContext`): none imports the host class, or reaches up to it through the DOM.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const element = new URL('../../src/element/', import.meta.url).pathname;
const host = join(element, 'svc-checkout.ts');

/** Every TypeScript file under a folder of src/element. */
const filesOf = (folder: string) =>
  readdirSync(join(element, folder), { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.ts'))
    .map((path) => join(element, folder, path));

/** The files a module imports (statically, as a type, or on demand), resolved. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)].map((match) => match[1]!);
  return specifiers.map((specifier) => resolve(dirname(file), specifier).replace(/\.js$/, '.ts'));
}

describe('the seams of the element', () => {
  const files = [...filesOf('parts'), ...filesOf('controllers')];

  it('has parts and controllers to look at', () => {
    expect(files.some((file) => file.endsWith('controllers/isolated-frame.ts'))).toBe(true);
    expect(files.some((file) => file.endsWith('bank-account-form.ts'))).toBe(true);
  });

  it('gives no part or controller the host class: they take the context', () => {
    expect(files.filter((file) => importsOf(file).includes(host)).map((file) => file.slice(element.length))).toEqual([]);
  });

  it('lets no part or controller reach up to the host element through the DOM', () => {
    expect(files.filter((file) => /getRootNode\(\)\s*(as [^)]*\))?\s*\)?\.host/.test(readFileSync(file, 'utf8'))).map((file) => file.slice(element.length))).toEqual([]);
  });
});
