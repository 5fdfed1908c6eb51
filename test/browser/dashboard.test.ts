// The sandbox's dashboard in a real browser, as the dev stack serves it (its own script and styles under its
// strict policy, its events streamed through): an order appears the moment it is created, what the payer typed
// shows as text, and its controls act on the sandbox.
import { expect } from '@open-wc/testing';
import { CHECKOUT_TOKEN_HEADER } from '../../src/core/index.js';
import { until } from './support/checkout.js';
import { startStack, type Stack } from './support/stack.js';

const HOSTILE_NAME = '<img src=x onerror="window.hacked=1">Beans & "tea"';

describe('the sandbox dashboard', () => {
  let stack: Stack;
  let frame: HTMLIFrameElement | undefined;
  before(async () => {
    stack = await startStack();
  });
  afterEach(() => {
    frame?.remove();
    frame = undefined;
  });

  async function openDashboard(): Promise<Document> {
    frame = document.createElement('iframe');
    frame.title = 'sandbox dashboard';
    frame.width = '1200';
    frame.height = '800';
    frame.src = `${stack.info.prefix}/sandbox/dashboard`;
    document.body.append(frame);
    const opened = frame;
    await until('the dashboard to go live', () => opened.contentDocument?.querySelector('#connection[data-state="live"]'), 10_000);
    return opened.contentDocument as Document;
  }

  async function createPosOrder(reference: string, sn: string): Promise<string> {
    const token = await stack.checkoutToken({ reference, product: { name: HOSTILE_NAME, description: 'x' } });
    const answer = await fetch(`${stack.endpoint}/payments`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [CHECKOUT_TOKEN_HEADER]: token },
      body: JSON.stringify({ reference, payMethod: 'Pos', sn }),
    }).then((response) => response.json());
    expect(answer.code, JSON.stringify(answer)).to.equal('00000');
    return answer.data.orderNo;
  }

  it('is served under a policy that allows only its own script and styles', async () => {
    const response = await fetch(`${stack.info.prefix}/sandbox/dashboard`);
    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy).to.contain("script-src 'self'");
    expect(policy).not.to.contain('unsafe-inline');
  });

  it('lists the payment links the kit made, each with its checkout’s orders as they come', async () => {
    const dashboard = await openDashboard();
    const reference = `dash-link-${Date.now()}`;
    const made = await stack.kitPaymentLink({ reference, product: { name: HOSTILE_NAME, description: 'x' } });
    const row = await until('the link on the dashboard', () => dashboard.querySelector(`tr[data-link="${reference}"]`));
    expect(row.querySelector('td')?.firstChild?.textContent).to.equal(HOSTILE_NAME);
    expect(row.querySelector('a')?.getAttribute('href')).to.equal(made.url);
    expect(dashboard.querySelector('img')).to.equal(null);
    const orderNo = await createPosOrder(reference, 'SN-DASH-LINK');
    await until('the link’s order on the dashboard', () => dashboard.querySelector(`tr[data-link="${reference}"]`)?.textContent?.includes(orderNo));
    expect(dashboard.querySelector(`tr[data-link="${reference}"] .status-PENDING`)?.textContent).to.equal('PENDING');
  });

  it('shows an order the moment it is created, with what the payer typed as text', async () => {
    const dashboard = await openDashboard();
    const reference = `dash-${Date.now()}`;
    const orderNo = await createPosOrder(reference, 'SN-DASH-1');
    const row = await until('the order on the dashboard', () => dashboard.querySelector(`tr[data-order-no="${orderNo}"]`));
    expect(row.querySelector('.status-PENDING')?.textContent).to.equal('PENDING');
    expect(row.querySelector('.product')?.textContent).to.equal(HOSTILE_NAME);
    expect(dashboard.querySelector('img')).to.equal(null);
    expect((frame?.contentWindow as unknown as { hacked?: number }).hacked).to.equal(undefined);
  });

  it('settles an order with its control, and shows the callback the kit acknowledged', async () => {
    const dashboard = await openDashboard();
    const orderNo = await createPosOrder(`dash-pay-${Date.now()}`, 'SN-DASH-2');
    const succeed = await until('the Succeed control', () => dashboard.querySelector<HTMLButtonElement>(`tr[data-order-no="${orderNo}"] button[data-action="succeed"]`));
    succeed.click();
    await until('the order to show SUCCESS', () => dashboard.querySelector(`tr[data-order-no="${orderNo}"] .status-SUCCESS`));
    expect((await stack.order(orderNo)).status).to.equal('SUCCESS');
    const delivery = await until('the acknowledged callback', () => dashboard.querySelector(`#deliveries tr[data-order-no="${orderNo}"] .status-acknowledged`)?.closest('tr'));
    expect(delivery?.textContent).to.match(/delivery → 200/);
    expect(delivery?.textContent).to.match(/signature [0-9a-f]{24}…/);
  });

  it('moves the sandbox clock and queues a fault from its controls', async () => {
    const dashboard = await openDashboard();
    const before = (await stack.sandbox.clock()).offsetMs;
    dashboard.querySelector<HTMLButtonElement>('button[data-action="advance-31"]')?.click();
    await until('the clock to move', async () => (await stack.sandbox.clock()).offsetMs >= before + 31 * 60_000);
    await until('the clock to show it', () => /min ahead of real time/.test(dashboard.querySelector('#clock-offset')?.textContent ?? ''));

    const form = dashboard.querySelector<HTMLFormElement>('form[data-form="delivery-fault"]');
    const kind = form?.querySelector<HTMLSelectElement>('select[name="kind"]');
    if (!form || !kind) throw new Error('no delivery fault form');
    kind.value = 'omit';
    form.requestSubmit();
    const row = await until('the queued fault', () => dashboard.querySelector('#delivery-faults tr[data-fault]'));
    expect(row.textContent).to.contain('omit');
    row.querySelector<HTMLButtonElement>('button[data-action="remove-fault"]')?.click();
    await until('the fault to go', async () => (await stack.sandbox.deliveryFaults()).length === 0);
  });
});
