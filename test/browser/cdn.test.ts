// What ships: the CDN file in a plain HTML page with no bundler, under a strict Content-Security-Policy too.
import { expect } from '@open-wc/testing';
import { clickButton, type, until, untilText, visibleText } from './support/checkout.js';
import { frameErrors, frameText, loadedFrame } from './support/isolated.js';
import { startStack, type Stack } from './support/stack.js';

interface ShopWindow extends Window {
  cspViolations: { directive: string; blocked: string; source: string }[];
  warnings: string[];
  secondCopy?: Promise<string>;
}

async function openShop(stack: Stack, extra: Record<string, string> = {}, page = 'cdn-page') {
  const query = new URLSearchParams({
    endpoint: stack.endpoint,
    'checkout-token': await stack.checkoutToken({ reference: `cdn-${Date.now()}-${Math.random().toString(36).slice(2, 7)}` }),
    'pay-method': 'ReferenceCode',
    'poll-interval': '100',
    locale: 'en',
    ...extra,
  });
  const frame = document.createElement('iframe');
  frame.title = 'shop';
  frame.src = `/test/browser/fixtures/${page}.html?${query}`;
  document.body.append(frame);
  const element = await until('the CDN element', () => {
    const found = frame.contentDocument?.querySelector('svc-checkout');
    return found?.shadowRoot?.querySelector('.body') ? found : undefined;
  });
  return { frame, element, window: frame.contentWindow as ShopWindow };
}

async function payByReferenceCode(stack: Stack, element: Element) {
  await type(element, 'input[name=notifyUserName]', 'Mona Hassan');
  await type(element, 'input[name=notifyUserEmail]', 'mona@example.com');
  await type(element, 'input[name=notifyUserMobile]', '+201001234567');
  await clickButton(element, 'Get my code');
  await untilText(element, 'Your reference code');
  const code = /(\d{3} \d{3} \d{3})/.exec(visibleText(element))![1]!.replaceAll(' ', '');
  const paid = await stack.control('POST', `/sandbox/v1/reference-codes/${code}/pay`);
  expect(paid.status).to.equal(200);
  await untilText(element, 'Payment received');
}

describe('the CDN build, dist/cdn/svc-checkout.js', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  afterEach(() => sessionStorage.clear());

  it('pays with a reference code from a plain HTML page', async () => {
    const shop = await openShop(stack);
    try {
      // What a page without a bundler imports from it: the same module the script tag loaded.
      const exported = await (shop.window as unknown as { eval(code: string): Promise<Record<string, unknown>> }).eval("import('/dist/cdn/svc-checkout.js')");
      expect(exported['SvcCheckout']).to.equal(shop.window.customElements.get('svc-checkout'));
      expect(exported['TAG_NAME']).to.equal('svc-checkout');
      expect(typeof exported['registerTranslation']).to.equal('function');
      expect(exported['PayResultStatus']).to.include({ success: 'SUCCESS' });
      await payByReferenceCode(stack, shop.element);
    } finally {
      shop.frame.remove();
    }
  });

  it('works under Content-Security-Policy: default-src \'self\', with no violation', async () => {
    const shop = await openShop(stack, { csp: 'strict' });
    try {
      const policy = await fetch(shop.frame.src).then((response) => response.headers.get('content-security-policy'));
      expect(policy).to.equal("default-src 'self'");
      await payByReferenceCode(stack, shop.element);
      const ours = shop.window.cspViolations.filter((violation) => !violation.source.includes('__web-dev-server'));
      expect(ours).to.deep.equal([]);
      const styled = getComputedStyle(shop.element.shadowRoot!.querySelector('.base')!);
      expect(styled.borderStyle).to.equal('solid');
    } finally {
      shop.frame.remove();
    }
  });

  it('warns instead of throwing when a page loads a second copy', async () => {
    const shop = await openShop(stack, { twice: '1' });
    try {
      expect(await shop.window.secondCopy).to.equal('loaded');
      expect(shop.window.warnings.join('\n')).to.contain('<svc-checkout> is already defined by another copy');
      expect(visibleText(shop.element)).to.contain('EGP 125.00');
    } finally {
      shop.frame.remove();
    }
  });

  it('speaks Arabic from a page that preloads its words, as the README writes it: from the one file the page names', async () => {
    const shop = await openShop(stack, { locale: 'ar' }, 'cdn-page-arabic');
    try {
      await untilText(shop.element, 'ادفع');
      // The file the link preloaded is the one the entry imports (a module is fetched once per address): had the
      // words another name, the link would fetch a file nobody uses, and the entry its own.
      const fetched = shop.window.performance.getEntriesByType('resource').map((entry) => new URL(entry.name).pathname);
      expect(fetched.filter((path) => /[/-]ar[-.]/.test(path))).to.deep.equal(['/dist/cdn/svc-checkout-ar.js']);
      expect(shop.window.warnings).to.deep.equal([]);
    } finally {
      shop.frame.remove();
    }
  });

  it('still speaks and pays when the entry is loaded under another address (a query string): its chunks load a second copy', async () => {
    const bank = await openShop(stack, { 'pay-method': 'BankAccount' }, 'cdn-page-versioned');
    try {
      // The second copy's form still takes its fields from the element's context, isolated: the bank details in the
      // frame, none in the page (a copy that reached for its own class of the element found none, and drew them in the page).
      await loadedFrame(bank.element);
      const labels = ['Account number', 'Bank code', 'Date of birth of the account holder'];
      await until('the bank account fields in their frame', async () => {
        const text = await frameText(bank.element);
        return labels.every((label) => text.includes(label));
      });
      for (const label of labels) expect(visibleText(bank.element)).not.to.contain(label);
      await clickButton(bank.element, /^Pay/);
      await until('the frame says what is missing', async () => (await frameErrors(bank.element)).some((error) => error.startsWith('Enter account number')));
      expect(bank.window.warnings.join('\n')).to.contain('<svc-checkout> is already defined by another copy');
    } finally {
      bank.frame.remove();
    }
    const code = await openShop(stack, {}, 'cdn-page-versioned');
    try {
      await untilText(code.element, 'Your name');
      await payByReferenceCode(stack, code.element);
    } finally {
      code.frame.remove();
    }
  });
});
