// The merchant's look: --svc-* tokens, ::part() from outside, and light and dark themes.
import { expect, fixture, html } from '@open-wc/testing';
import { emulateMedia } from '@web/test-runner-commands';
import { canEmulateMedia, checkout, clickButton, deepQuery, deepQueryAll, settle } from './support/checkout.js';
import { startStack, type Stack } from './support/stack.js';

const LIGHT_BACKGROUND = 'rgb(255, 255, 255)';
const DARK_BACKGROUND = 'rgb(27, 27, 31)';

describe('<svc-checkout> theming', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  afterEach(() => sessionStorage.clear());

  it('takes colours, radius, spacing and font from --svc-* tokens set on it or above it', async () => {
    const wrapper = await fixture<HTMLDivElement>(html`<div
      style="--svc-color-primary: rgb(120, 20, 60); --svc-radius: 3px; --svc-font-family: Georgia, serif; --svc-spacing: 10px"
    ></div>`);
    const element = await checkout(stack, { payMethod: 'Pos' });
    wrapper.append(element);
    await element.updateComplete;
    const button = deepQuery(element, 'button[type=submit]')!;
    expect(getComputedStyle(button).backgroundColor).to.equal('rgb(120, 20, 60)');
    const base = element.shadowRoot!.querySelector('.base')!;
    expect(getComputedStyle(base).borderTopLeftRadius).to.equal('3px');
    expect(getComputedStyle(base).paddingTop).to.equal('10px');
    expect(getComputedStyle(button).fontFamily).to.contain('Georgia');
  });

  it('keeps text meant for screen readers out of sight, in the element and in its parts', async () => {
    const element = await checkout(stack, { payMethod: 'Pos' });
    await clickButton(element, /^Pay/); // an empty form: its errors carry a spoken "Error:" prefix
    await settle(element);
    const hidden = deepQueryAll(element, '.visually-hidden');
    expect(hidden.length).to.be.at.least(2);
    for (const node of hidden) {
      const box = node.getBoundingClientRect();
      expect(box.width <= 1 && box.height <= 1, `${node.textContent} is ${box.width}×${box.height}`).to.equal(true);
      expect(getComputedStyle(node).position).to.equal('absolute');
    }
  });

  it('lets the page style its parts with ::part(), through the nested parts', async () => {
    const style = document.createElement('style');
    style.textContent = `
      svc-checkout.branded::part(button) { text-transform: uppercase; }
      svc-checkout.branded::part(input) { border-color: rgb(0, 128, 0); }
      svc-checkout.branded::part(base) { box-shadow: rgb(0, 0, 0) 0px 2px 8px 0px; }
    `;
    document.head.append(style);
    try {
      const element = await checkout(stack, { payMethod: 'Pos' });
      element.classList.add('branded');
      await element.updateComplete;
      expect(getComputedStyle(deepQuery(element, 'button[type=submit]')!).textTransform).to.equal('uppercase');
      expect(getComputedStyle(deepQuery(element, 'input[name=sn]')!).borderTopColor).to.equal('rgb(0, 128, 0)');
      expect(getComputedStyle(element.shadowRoot!.querySelector('.base')!).boxShadow).to.contain('8px');
    } finally {
      style.remove();
    }
  });

  it('switches to dark with theme="dark", and back with theme="light"', async () => {
    const element = await checkout(stack, { payMethod: 'Pos' });
    const base = element.shadowRoot!.querySelector('.base')!;
    element.setAttribute('theme', 'dark');
    await element.updateComplete;
    expect(getComputedStyle(base).backgroundColor).to.equal(DARK_BACKGROUND);
    expect(getComputedStyle(element).colorScheme).to.equal('dark');
    element.setAttribute('theme', 'light');
    await element.updateComplete;
    expect(getComputedStyle(base).backgroundColor).to.equal(LIGHT_BACKGROUND);
  });

  it('follows prefers-color-scheme when no theme is set', async () => {
    const element = await checkout(stack, { payMethod: 'Pos' });
    const base = element.shadowRoot!.querySelector('.base')!;
    // The dark tokens are in a prefers-color-scheme rule in the stylesheet every browser uses…
    const dark = element
      .shadowRoot!.adoptedStyleSheets.flatMap((sheet) => [...sheet.cssRules])
      .find((rule): rule is CSSMediaRule => rule instanceof CSSMediaRule && rule.conditionText.includes('prefers-color-scheme: dark'));
    const hostRule = [...(dark?.cssRules ?? [])].find((rule): rule is CSSStyleRule => rule instanceof CSSStyleRule);
    expect(hostRule?.selectorText).to.equal(":host(:not([theme=\"light\"]))");
    expect(hostRule?.style.getPropertyValue('--_background').trim()).to.equal('var(--svc-color-background, #1b1b1f)');
    // …and where a test can ask the browser for a dark scheme (Chromium, through CDP), it takes effect. Firefox and
    // WebKit (over WebDriver) cannot be asked: there the stylesheet is what is checked.
    if (canEmulateMedia) {
      await emulateMedia({ colorScheme: 'dark' });
      try {
        expect(getComputedStyle(base).backgroundColor).to.equal(DARK_BACKGROUND);
        element.setAttribute('theme', 'light');
        await element.updateComplete;
        expect(getComputedStyle(base).backgroundColor).to.equal(LIGHT_BACKGROUND);
      } finally {
        await emulateMedia({ colorScheme: 'light' });
      }
    }
  });
});
