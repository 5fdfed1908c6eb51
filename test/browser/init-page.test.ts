// The page of the shop `npx svc-checkout init` writes (src/scaffold), run as its own server.mjs against a sandbox,
// follows the payer's colour scheme as the element does: dark together (never a dark element on a white page) and
// light together. Dark is shown where the driver can emulate it: Chromium (puppeteer). Firefox's driver (WebDriver
// BiDi) refuses the emulation and WebKitGTK's WebDriver cannot read a window of another origin: there the light page
// alone is checked, in Firefox.
import { expect } from '@open-wc/testing';
import { executeServerCommand } from '@web/test-runner-commands';
import { until } from './support/checkout.js';
import { startStack, type Stack } from './support/stack.js';

interface Shades {
  /** The page's own background (its canvas, as the browser paints it), and the element's, as relative luminance 0–1. */
  page: number;
  element: number;
  dark: boolean;
}

/** Read in the shop's window by the automation (another origin than this page's). */
const READ_SHADES = `
  const element = document.querySelector('svc-checkout');
  const base = element?.shadowRoot?.querySelector('[part=base]');
  if (!base || !element.shadowRoot.querySelector('[part=amount]')) return undefined;
  const luminance = (color) => {
    const [r, g, b] = (color.match(/[\\d.]+/g) ?? []).map(Number).map((c) => c / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  // The page paints its canvas: the colour the system's Canvas keyword takes in it (its color-scheme decides).
  const probe = document.createElement('div');
  probe.style.background = 'Canvas';
  document.body.append(probe);
  const page = getComputedStyle(probe).backgroundColor;
  probe.remove();
  const body = getComputedStyle(document.body).backgroundColor;
  return {
    page: luminance(body === 'rgba(0, 0, 0, 0)' ? page : body),
    element: luminance(getComputedStyle(base).backgroundColor),
    dark: matchMedia('(prefers-color-scheme: dark)').matches,
  };
`;

describe('the init shop’s page follows the payer’s colour scheme', () => {
  let stack: Stack;
  let shop: Window | null = null;
  before(async () => {
    stack = await startStack();
  });
  after(() => shop?.close());

  it('light together, and dark together where the browser can be shown dark', async function () {
    this.timeout(60_000);
    const { url } = (await executeServerCommand<{ url: string }, unknown>('svc-init-shop', { stack: stack.info.id }))!;
    const address = new URL(url).host;
    shop = window.open(url, 'init-shop', 'popup,width=390,height=844');
    expect(shop, 'the browser opened no window').to.not.equal(null);
    const read = async (dark: boolean) =>
      until(
        `the page ${dark ? 'dark' : 'light'}`,
        async () => {
          const answer = await executeServerCommand<{ value?: Shades; unsupported?: true }, unknown>('svc-window-eval', { address, body: READ_SHADES });
          if (answer?.unsupported) return 'unsupported' as const;
          const shades = answer?.value;
          return shades && shades.dark === dark ? shades : undefined;
        },
        15_000,
      );
    const light = await read(false);
    if (light === 'unsupported') {
      // WebKitGTK over WebDriver: no window of another origin can be read, nor shown dark.
      return;
    }
    expect(light.page, 'the page light').to.be.above(0.8);
    expect(light.element, 'the element light').to.be.above(0.8);
    const shown = await executeServerCommand<{ emulated: boolean }, unknown>('svc-window-color-scheme', { address, scheme: 'dark' });
    if (!shown?.emulated) {
      // Firefox over WebDriver BiDi refuses the emulation (as in pay-links.test.ts); Chromium must show it.
      expect(navigator.userAgent, 'Chromium shows the window dark').not.to.match(/Chrome\//);
      return;
    }
    const dark = await read(true);
    if (dark === 'unsupported') throw new Error('unreachable');
    expect(dark.element, 'the element dark').to.be.below(0.1);
    expect(dark.page, 'the page dark with it').to.be.below(0.1);
  });
});
