// A payment link made by the command line (`svc-checkout link`), opened on two screens: a phone-sized window (390 px)
// pays by reference code, a desktop window opened on the same link follows the payment live and shows the receipt.
// The pay page at 320 px, axe (WCAG 2.2 AA) on it in English and Arabic, its language switch, and its expiry on the
// sandbox's clock. Each screen is a window of its own (its own document and session storage), opened by the test page.
import { expect } from '@open-wc/testing';
import { executeServerCommand } from '@web/test-runner-commands';
import { clickButton, deepQuery, type, uniqueReference, until, untilText, visibleText } from './support/checkout.js';
import { violations, type Screen } from './support/axe.js';
import { startStack, type Stack } from './support/stack.js';


const opened: Window[] = [];

/** A window of `width` px on `url`, once its element (or, for a refused link, its page) is there. */
async function openScreen(url: string, width: number, name: string): Promise<Screen> {
  const screen = window.open(url, name, `popup,width=${width},height=844`) as Screen | null;
  if (!screen) throw new Error('the browser opened no window');
  opened.push(screen);
  await loaded(screen);
  return screen;
}

async function loaded(screen: Screen): Promise<void> {
  await until('the pay page', () => screen.document?.readyState === 'complete' && screen.location.pathname.includes('/pay/') && screen.document.querySelector('main'), 15_000);
}

/** The pay page's element, its first frame painted. */
const elementOf = (screen: Screen) => until('the element', () => screen.document.querySelector('svc-checkout')?.shadowRoot && screen.document.querySelector('svc-checkout')!, 15_000);

const LINK_ARGS = ['--amount', '12500', '--currency', 'EGP', '--country', 'EG', '--product', 'Coffee beans', '--description', 'Ethiopian, 250 g', '--merchant-name', 'Nile Coffee Roasters'];

async function payByReferenceCode(element: Element) {
  await until('the method picker', () => deepQuery(element, 'input[value=ReferenceCode]'));
  deepQuery<HTMLInputElement>(element, 'input[value=ReferenceCode]')!.click();
  await type(element, 'input[name=notifyUserName]', 'Mona Hassan');
  await type(element, 'input[name=notifyUserEmail]', 'mona@example.com');
  await type(element, 'input[name=notifyUserMobile]', '+201001234567');
  await clickButton(element, 'Get my code');
  await untilText(element, 'Your reference code', 15_000);
}

describe('a payment link on two screens', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack({ sandboxClock: true });
  });
  afterEach(() => {
    for (const screen of opened.splice(0)) screen.close();
  });

  it('is paid on a phone by reference code, and a desktop on the same link follows it live to the receipt', async function () {
    this.timeout(90_000);
    const reference = uniqueReference('link');
    const url = await stack.paymentLink([...LINK_ARGS, '--reference', reference, '--expires', '3d']);
    expect(url).to.match(/\/pay\/pl1\.[\w-]+$/);

    const phone = await openScreen(url, 390, `phone-${reference}`);
    expect(phone.innerWidth).to.equal(390);
    expect(phone.document.documentElement.scrollWidth, 'no sideways scrolling at 390 px').to.be.at.most(390);
    const onPhone = await elementOf(phone);
    expect(visibleText(phone.document.body)).to.contain('Nile Coffee Roasters').and.to.contain('Coffee beans').and.to.contain('EGP 125.00');
    await payByReferenceCode(onPhone);

    // The desktop opens the link after the phone made its order: it finds the order and its code (the service's status
    // tells none; the kit's note of the attempt does), and waits for its payment with the phone.
    const desktop = await openScreen(url, 1280, `desktop-${reference}`);
    const onDesktop = await elementOf(desktop);
    await untilText(onDesktop, 'Your reference code', 15_000).catch((error) => { throw new Error(`${error} — the desktop shows: ${visibleText(onDesktop)}`); });

    const order = (await stack.sandbox.orders()).find((each) => each.reference === reference);
    expect(order?.referenceCode, 'the order the phone made').to.be.a('string');
    expect(deepQuery(onDesktop, '.digits')?.textContent?.replace(/\s/g, ''), 'the phone\'s code on the desktop').to.equal(order!.referenceCode);
    const paidAt = performance.now();
    await stack.sandbox.payReferenceCode(order!.referenceCode!);
    await untilText(onDesktop, 'Payment received', 10_000);
    const followed = performance.now() - paidAt;
    await untilText(onPhone, 'Payment received', 10_000);
    // The callback reaches the kit within a moment of the payment; the desktop shows it as the kit hears it.
    expect(followed, 'the desktop shows the receipt soon after the payment').to.be.below(5_000);

    // Opened again after it was paid: the receipt, never a second form.
    const later = await openScreen(url, 1280, `later-${reference}`);
    await untilText(await elementOf(later), 'Payment received', 15_000);
    expect((await stack.sandbox.orders()).filter((each) => each.reference.startsWith(reference))).to.have.length(1);
  });

  it('fits 320 px, passes axe in English and Arabic, and switches language from the page', async function () {
    this.timeout(60_000);
    const url = await stack.paymentLink([...LINK_ARGS, '--reference', uniqueReference('narrow')]);
    const narrow = await openScreen(url, 320, 'narrow');
    const element = await elementOf(narrow);
    await until('the method picker', () => deepQuery(element, 'input[value=ReferenceCode]'));
    // "Pay on your phone": the QR code drawn by the kit, under the page's policy.
    const move = narrow.document.querySelector<HTMLDetailsElement>('details.move')!;
    move.open = true;
    const qr = move.querySelector('img')!;
    await until('the QR code', () => qr.complete && qr.naturalWidth > 0);
    expect(narrow.document.documentElement.scrollWidth, 'no sideways scrolling at 320 px').to.be.at.most(narrow.innerWidth);
    expect(await violations(narrow), 'axe, English').to.deep.equal([]);
    // Dark, where the driver can show a window so (Chromium and Firefox over puppeteer).
    const dark = await executeServerCommand<{ emulated: boolean }, unknown>('svc-window-color-scheme', { address: new URL(url).pathname, scheme: 'dark' });
    if (dark?.emulated) {
      await until('the dark scheme', () => narrow.matchMedia('(prefers-color-scheme: dark)').matches);
      expect(narrow.getComputedStyle(narrow.document.body).backgroundColor).to.equal('rgb(18, 19, 22)');
      expect(await violations(narrow), 'axe, English, dark').to.deep.equal([]);
      await executeServerCommand('svc-window-color-scheme', { address: new URL(url).pathname, scheme: 'light' });
    }
    // Printed, the page is a voucher: the shop, the order, the element, where to pay; no language switch, no footer.
    const print = await executeServerCommand<{ emulated: boolean }, unknown>('svc-window-color-scheme', { address: new URL(url).pathname, media: 'print' });
    if (print?.emulated) {
      await until('the print medium', () => narrow.matchMedia('print').matches);
      const shown = (selector: string) => narrow.getComputedStyle(narrow.document.querySelector(selector)!).display !== 'none';
      expect([shown('nav'), shown('footer'), shown('details.move'), shown('.where'), shown('svc-checkout'), shown('h1')]).to.deep.equal([false, false, false, true, true, true]);
      await executeServerCommand('svc-window-color-scheme', { address: new URL(url).pathname, media: null });
    }

    const switchTo = narrow.document.querySelector<HTMLAnchorElement>('nav a[hreflang=ar]');
    expect(switchTo?.textContent).to.equal('العربية');
    switchTo!.click();
    await until('the Arabic page', () => narrow.document?.documentElement?.lang === 'ar' && narrow.document.readyState === 'complete', 15_000);
    expect(narrow.document.documentElement.dir).to.equal('rtl');
    const arabic = await elementOf(narrow);
    await untilText(arabic, 'الدفع');
    expect(narrow.document.documentElement.scrollWidth, 'no sideways scrolling at 320 px, in Arabic').to.be.at.most(narrow.innerWidth);
    expect(await violations(narrow), 'axe, Arabic').to.deep.equal([]);
  });

  it('expires on the sandbox clock: the page then says so in both languages (410), and a fresh link for the cart opens', async function () {
    this.timeout(60_000);
    const reference = uniqueReference('expiring');
    const url = await stack.paymentLink([...LINK_ARGS, '--reference', reference, '--expires', '1h']);
    expect((await fetch(url)).status).to.equal(200);
    await stack.sandbox.advanceClock(61);
    expect((await fetch(url)).status).to.equal(410);
    const screen = await openScreen(url, 390, 'expired');
    const text = visibleText(screen.document.body);
    expect(text).to.contain('This payment link has expired').and.to.contain('انتهت صلاحية رابط الدفع هذا');
    expect(screen.document.querySelector('svc-checkout')).to.equal(null);
    expect(await violations(screen), 'axe, the expired page').to.deep.equal([]);

    const fresh = await stack.paymentLink([...LINK_ARGS, '--reference', reference]);
    expect((await fetch(fresh)).status).to.equal(200);
    // An altered link is no link.
    const altered = fresh.replace(/.$/, (last) => (last === 'A' ? 'B' : 'A'));
    expect((await fetch(altered)).status).to.equal(404);
  });
});
