/**
 * Helpers to drive <svc-checkout> in a test: make one against a stack, find elements through the parts'
 * shadow roots, type, click, and wait for what the payer would see.
 */
import { fixture, html, oneEvent } from '@open-wc/testing';
import { nothing } from 'lit';
import '../../../src/element/index.js';
import type { SvcCheckout } from '../../../src/element/index.js';
import { frameText, isolatedFrames, typeInFrame } from './isolated.js';
import type { Stack } from './stack.js';

let counter = 0;

// Lit's development build warns about mistakes (updates scheduled after an update, and the like): in these
// suites a warning is a failure.
const litWarnings: string[] = [];
const warn = console.warn.bind(console);
console.warn = (...args: unknown[]) => {
  const text = args.map(String).join(' ');
  if (/lit\.dev\/msg\/(?!dev-mode)/.test(text)) litWarnings.push(text);
  warn(...args);
};
afterEach(() => {
  if (litWarnings.length > 0) throw new Error(`Lit warned:\n${litWarnings.splice(0).join('\n')}`);
});

/** WebKitGTK (MiniBrowser, driven over WebDriver): its user agent names neither Chrome nor Firefox. */
export const isWebKit = !/Chrome\/|Firefox\//.test(navigator.userAgent);

/**
 * Whether a test can ask this browser to emulate a media feature (prefers-color-scheme, prefers-reduced-motion).
 * Chromium can, through CDP; Firefox, driven over WebDriver BiDi, and WebKit, driven over classic WebDriver,
 * cannot, so their tests read the stylesheet instead.
 */
export const canEmulateMedia = !navigator.userAgent.includes('Firefox/') && !isWebKit;

/** A reference no other test uses. */
export function uniqueReference(prefix = 'wtr'): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter}-${Math.random().toString(36).slice(2, 8)}`;
}

export interface CheckoutOptions {
  /** The element's endpoint, when not the stack's own (through a proxy). */
  endpoint?: string;
  /** A token of the test's own; otherwise one for `reference`, `amount` and `expireAt`. */
  checkoutToken?: string;
  reference?: string;
  methods?: string;
  payMethod?: string;
  amount?: number;
  locale?: string;
  expireAt?: number;
  redirectMode?: string;
  returnUrl?: string;
  /** `false`: the bank account details and codes are typed in the element, not in its isolated frame. */
  isolated?: boolean;
}

const references = new WeakMap<Element, string>();

/** The reference of the order the shop's server decided for an element made by `checkout()`. */
export function referenceOf(element: Element): string {
  const reference = references.get(element);
  if (!reference) throw new Error('referenceOf: the element was not made by checkout() with a reference of its own');
  return reference;
}

export async function checkout(stack: Stack, options: CheckoutOptions = {}): Promise<SvcCheckout> {
  // The shop's server decides the order and renders its checkout token into the page.
  const reference = options.reference ?? uniqueReference();
  const token =
    options.checkoutToken ??
    (await stack.checkoutToken({
      reference,
      amount: { total: options.amount ?? 12_500, currency: 'EGP' },
      expireAt: options.expireAt ?? 30,
    }));
  const element = await fixture<SvcCheckout>(html`
    <svc-checkout
      endpoint=${options.endpoint ?? stack.endpoint}
      checkout-token=${token}
      methods=${options.methods ?? 'Pos BankAccount ReferenceCode'}
      pay-method=${options.payMethod ?? ''}
      poll-interval="100"
      locale=${options.locale ?? 'en'}
      redirect-mode=${options.redirectMode ?? 'same-window'}
      return-url=${options.returnUrl ?? ''}
      isolated=${options.isolated === false ? 'false' : nothing}
      sandbox
    ></svc-checkout>
  `);
  await element.updateComplete;
  if (!options.checkoutToken) references.set(element, reference);
  return element;
}

/** Walks down shadow roots: each selector is looked up in the previous match's shadow root (or light DOM). */
export function query<T extends Element = HTMLElement>(root: Element, ...selectors: string[]): T | null {
  let current: Element | null = root;
  for (const selector of selectors) {
    if (!current) return null;
    const scope: ParentNode = current.shadowRoot ?? current;
    current = scope.querySelector(selector);
  }
  return current as T | null;
}

/** Finds an element anywhere below `root`, through every shadow root. */
/** The element's shadow root, else the node itself; realm-independent (elements in an iframe are not `instanceof Element` here). */
function scopeOf(root: Element | ShadowRoot): ParentNode {
  return root.nodeType === Node.ELEMENT_NODE ? ((root as Element).shadowRoot ?? root) : root;
}

export function deepQuery<T extends Element = HTMLElement>(root: Element | ShadowRoot, selector: string): T | null {
  const scope = scopeOf(root);
  const direct = scope.querySelector<T>(selector);
  if (direct) return direct;
  for (const element of scope.querySelectorAll('*')) {
    if (element.shadowRoot) {
      const found = deepQuery<T>(element.shadowRoot, selector);
      if (found) return found;
    }
  }
  return null;
}

export function deepQueryAll<T extends Element = HTMLElement>(root: Element | ShadowRoot, selector: string): T[] {
  const scope = scopeOf(root);
  const found = [...scope.querySelectorAll<T>(selector)];
  for (const element of scope.querySelectorAll('*')) {
    if (element.shadowRoot) found.push(...deepQueryAll<T>(element.shadowRoot, selector));
  }
  return found;
}

/** The text the payer sees, through shadow roots. */
export function visibleText(root: Element): string {
  const parts: string[] = [];
  const walk = (node: Node) => {
    const shadow = node.nodeType === Node.ELEMENT_NODE ? (node as Element).shadowRoot : null;
    if (shadow) shadow.childNodes.forEach(walk);
    if (node.nodeType === Node.TEXT_NODE) parts.push(node.textContent ?? '');
    node.childNodes.forEach(walk);
  };
  walk(root);
  return parts.join(' ').replace(/\s+/g, ' ').trim();
}

/** Types into an input as a payer would: the value changes and `input` fires; then the field is left. */
export async function type(root: Element, selector: string, value: string): Promise<void> {
  const input = await until(`an input ${selector}`, () => deepQuery<HTMLInputElement>(root, selector));
  input.focus();
  input.value = value;
  input.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  input.dispatchEvent(new FocusEvent('blur'));
  await settle(root);
}

export async function choose(root: Element, selector: string, value: string): Promise<void> {
  const select = await until(`a select ${selector}`, () => deepQuery<HTMLSelectElement>(root, selector));
  select.value = value;
  select.dispatchEvent(new Event('change', { bubbles: true, composed: true }));
  await settle(root);
}

export async function click(root: Element, selector: string): Promise<void> {
  const target = await until(`something to click: ${selector}`, () => deepQuery<HTMLElement>(root, selector));
  target.click();
  await settle(root);
}

/** A button by its visible text. */
export function buttonNamed(root: Element, name: string | RegExp): HTMLButtonElement | undefined {
  return deepQueryAll<HTMLButtonElement>(root, 'button').find((button) => {
    const text = (button.textContent ?? '').replace(/\s+/g, ' ').trim();
    return typeof name === 'string' ? text === name : name.test(text);
  });
}

export async function clickButton(root: Element, name: string | RegExp): Promise<void> {
  const button = await until(`a button "${name}"`, () => buttonNamed(root, name));
  button.click();
  await settle(root);
}

/** Lets Lit render everything that changed. */
export async function settle(root: Element): Promise<void> {
  for (let round = 0; round < 3; round++) {
    await (root as SvcCheckout).updateComplete;
    for (const element of deepQueryAll(root, '*')) {
      const lit = element as unknown as { updateComplete?: Promise<unknown> };
      if (lit.updateComplete) await lit.updateComplete;
    }
  }
}

/** Checks every 25 ms until `check` returns something (it may be async), for at most `timeoutMs`. */
export async function until<T>(
  what: string,
  check: () => T | null | undefined | false | Promise<T | null | undefined | false>,
  timeoutMs = 8_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Waits until the payer sees `text`: in the element, or in its isolated frame. */
export function untilText(root: Element, text: string | RegExp, timeoutMs?: number): Promise<string> {
  const shows = (seen: string) => (typeof text === 'string' ? seen.includes(text) : text.test(seen)) && seen;
  return until(
    `the text ${text}`,
    async () => {
      const seen = visibleText(root);
      if (shows(seen) || isolatedFrames(root).length === 0) return shows(seen);
      return shows(`${seen} ${await frameText(root)}`);
    },
    timeoutMs,
  );
}

/** Collects every event of the given names the element dispatches. */
export function record(element: Element, ...names: string[]): { name: string; detail: any }[] {
  const seen: { name: string; detail: any }[] = [];
  for (const name of names) element.addEventListener(name, (event) => seen.push({ name, detail: (event as CustomEvent).detail }));
  return seen;
}

export { oneEvent };

/**
 * Fills the bank account form; by default with the sandbox's test bank and the birth date its test accounts check.
 * In the isolated frame (the default) by keyboard, as a payer types there; in the element's own form otherwise.
 */
export async function fillBankAccount(
  element: Element,
  account: string,
  { bankCode = '033', dob = ['05', '01', '1990'] }: { bankCode?: string; dob?: readonly string[] } = {},
): Promise<void> {
  if (await isolatedForm(element)) {
    await typeInFrame(element, [account, bankCode, ...dob]);
    await settle(element);
    return;
  }
  await type(element, 'input[name=bankAccountNumber]', account);
  await type(element, 'input[name=bankCode]', bankCode);
  await type(element, 'input[name=dobDay]', dob[0] as string);
  await type(element, 'input[name=dobMonth]', dob[1] as string);
  await type(element, 'input[name=dobYear]', dob[2] as string);
}

/** Types a one-time code or a PIN into the code step: in its isolated frame (the default), or in its own field. */
export async function typeCode(element: Element, code: string): Promise<void> {
  const inline = await until('the code field', async () => deepQuery(element, 'input[name=otp], input[name=pin]') ?? (isolatedFrames(element).length > 0 && 'frame'));
  if (inline !== 'frame') {
    await type(element, 'input[name=otp], input[name=pin]', code);
    return;
  }
  await typeInFrame(element, [code]);
  await settle(element);
}

/** Whether the element's bank account form is its isolated frame (once one of the two is there). */
async function isolatedForm(element: Element): Promise<boolean> {
  const found = await until('the bank account form', () => deepQuery(element, 'input[name=bankAccountNumber]') ?? isolatedFrames(element)[0]);
  return found.localName === 'iframe';
}
