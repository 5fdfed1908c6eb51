// Shops' apps in React 19, Vue 3 and Svelte 5 (test/apps/<framework>), each built with `vite build` and its
// framework's Vite plugin, as the shop would, then paid through in this browser against the file's own sandbox.
// Each app gets its checkout token from the shop's server, passes it, the language, the methods and the payer's
// details to <svc-checkout> as they change, and thanks the payer when svc-pay-result says SUCCESS.
import { expect } from '@open-wc/testing';
import type { SvcCheckout } from '../../src/element/index.js';
import { click, clickButton, deepQuery, type, until, untilText, visibleText } from './support/checkout.js';
import { startStack, type Stack } from './support/stack.js';

const PAYER = { userName: 'Mona Hassan', userEmail: 'mona@example.com', userMobile: '+201001234567' };

/** Opens a built app in a frame of this page (its own window: its own copy of the element and of its framework). */
async function openApp(stack: Stack, framework: string) {
  // The build runs on the first request of an app (a second or so); a failed build is an HTTP 500 here, and its
  // error is in the test runner's output.
  const src = `/__apps/${framework}/index.html?${new URLSearchParams({ shop: stack.info.prefix })}`;
  const page = await fetch(src);
  if (!page.ok) throw new Error(`the ${framework} app was not built: HTTP ${page.status}`);
  const frame = document.createElement('iframe');
  frame.title = `${framework} shop`;
  frame.style.inlineSize = '40rem';
  frame.style.blockSize = '60rem';
  frame.src = src;
  document.body.append(frame);
  const app = () => frame.contentDocument as Document;
  const element = await until(
    `the ${framework} app's <svc-checkout>`,
    () => {
      const found = frame.contentDocument?.querySelector<SvcCheckout>('svc-checkout');
      return found?.shadowRoot?.querySelector('svc-method-picker') ? found : undefined;
    },
    10_000,
  );
  const press = async (selector: string) => {
    const control = await until(`the app's ${selector}`, () => app().querySelector<HTMLElement>(selector));
    control.click();
  };
  return { frame, element, app, press };
}

for (const framework of ['react', 'vue', 'svelte']) {
  describe(`a ${framework} app built with Vite`, () => {
    let stack: Stack;
    before(async () => {
      stack = await startStack();
    });

    it('passes the token, language, methods and payer to <svc-checkout> as they change, and thanks the payer', async () => {
      const { frame, element, app, press } = await openApp(stack, framework);
      try {
        // Objects arrive as properties, strings as attributes or properties: nothing as "[object Object]".
        expect(element.userInfo).to.deep.equal(PAYER);
        expect(element.getAttributeNames().filter((name) => /user-?info/i.test(name))).to.deep.equal([]);
        expect(element.pollInterval).to.equal(200);
        await untilText(element, 'EGP 125.00');

        await press('.locale-ar');
        await untilText(element, 'الرمز المرجعي');
        await press('.locale-en');
        await untilText(element, 'Reference code');

        await press('.terminal-only');
        await until('only the terminal offered', () => !deepQuery(element, 'input[name=payMethod]') && deepQuery(element, 'input[name=sn]'));
        expect(visibleText(element)).not.to.contain('Reference code');
        await press('.terminal-only');
        await until('every method offered again', () => deepQuery(element, 'input[name=payMethod][value=ReferenceCode]'));

        // A bigger cart: the shop's server issues a new token for the new amount; the mounted element takes it.
        const firstToken = element.checkoutToken;
        await press('.quantity-2');
        await untilText(element, 'EGP 250.00');
        expect(element.checkoutToken).to.be.a('string').and.not.equal(firstToken);

        await click(element, 'input[name=payMethod][value=ReferenceCode]');
        const email = await until('the payer’s email, from userInfo', () => deepQuery<HTMLInputElement>(element, 'input[name=notifyUserEmail]'));
        expect(email.value).to.equal(PAYER.userEmail);
        await type(element, 'input[name=notifyUserName]', PAYER.userName);
        await clickButton(element, 'Get my code');
        await untilText(element, 'Your reference code');
        const code = /(\d{3} \d{3} \d{3})/.exec(visibleText(element))![1]!.replaceAll(' ', '');
        const order = await stack.sandbox.payReferenceCode(code);
        expect(order.amount).to.deep.include({ total: 25_000, currency: 'EGP' });

        const thanks = await until('the app’s thanks', () => app().querySelector('.thanks'), 10_000);
        expect(thanks.textContent).to.equal(`Thanks! Order ${order.orderNo} is paid.`);
        // Nothing warned or failed in the app's window: no framework, no element, no request.
        expect((frame.contentWindow as Window & { appConsole: string[] }).appConsole).to.deep.equal([]);
      } finally {
        frame.remove();
      }
    });
  });
}
