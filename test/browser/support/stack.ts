/**
 * A sandbox and merchant kit of this test file's own, started by the test runner (web-test-runner.config.mjs)
 * and reached on the page's origin under /stacks/<id>/.
 */
import { executeServerCommand } from '@web/test-runner-commands';
import { CHECKOUT_TOKEN_HEADER } from '../../../src/core/index.js';
import { SandboxControl } from '../../../src/sandbox/control/client.js';
import type { CheckoutOrder } from '../../../src/server/tokens/tokens.js';

/** The order every test's shop sells, unless the test says otherwise. */
export const SHOP_ORDER: Omit<CheckoutOrder, 'reference'> = {
  amount: { total: 12_500, currency: 'EGP' },
  country: 'EG',
  product: { name: 'Espresso beans, 1 kg', description: 'Single-origin Ethiopian beans' },
  merchantName: 'Nile Coffee Roasters',
  expireAt: 30,
};

export interface StackInfo {
  id: string;
  prefix: string;
  endpoint: string;
  merchantId: string;
}

export class Stack {
  constructor(readonly info: StackInfo) {}

  get endpoint(): string {
    return this.info.endpoint;
  }

  get merchantId(): string {
    return this.info.merchantId;
  }

  /** The sandbox's control API, passed through on the page's origin. */
  get sandbox(): SandboxControl {
    return new SandboxControl(this.info.prefix);
  }

  /** Calls the sandbox's control API. */
  control<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    return this.sandbox.request<T>(method as 'GET' | 'POST' | 'DELETE', path, body);
  }

  /** A checkout token for an order, as the shop's server renders it into its page. */
  async checkoutToken(order: Partial<CheckoutOrder> & { reference: string }, options?: { expiresInSeconds?: number }): Promise<string> {
    const token = await executeServerCommand<string, unknown>('svc-checkout-token', {
      stack: this.info.id,
      order: { ...SHOP_ORDER, ...order },
      options,
    });
    if (!token) throw new Error('the test runner issued no checkout token');
    return token;
  }

  /** A cart's checkout as the shop's server opens it for its page (the kit's `openCheckout`): its state and token. */
  async openCheckout(order: Partial<CheckoutOrder> & { reference: string }): Promise<{ token: string; state: string; attempt: number; started: boolean }> {
    const opened = await executeServerCommand<{ token: string; state: string; attempt: number; started: boolean }, unknown>('svc-open-checkout', {
      stack: this.info.id,
      order: { ...SHOP_ORDER, ...order },
    });
    if (!opened) throw new Error('the test runner opened no checkout');
    return opened;
  }

  /** A POS order created through the merchant kit by someone else (another tab, another device) with the same checkout. */
  async createPosOrderElsewhere(reference: string, sn: string, checkoutToken?: string): Promise<{ orderNo: string }> {
    const answer = await fetch(`${this.endpoint}/payments`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [CHECKOUT_TOKEN_HEADER]: checkoutToken ?? (await this.checkoutToken({ reference })) },
      body: JSON.stringify({ reference, payMethod: 'Pos', sn }),
    }).then((response) => response.json());
    if (answer.code !== '00000') throw new Error(`the order was not created: ${answer.code}`);
    return answer.data;
  }

  /** A payment link for this stack's kit, made by the command line (`svc-checkout link` with these arguments). */
  async paymentLink(args: string[]): Promise<string> {
    const url = await executeServerCommand<string, unknown>('svc-payment-link', { stack: this.info.id, args });
    if (!url) throw new Error('the command line made no link');
    return url;
  }

  /** A payment link made by the shop's kit (its `paymentLink`), which the sandbox's dashboard lists. */
  async kitPaymentLink(order: Partial<CheckoutOrder> & { reference: string }): Promise<{ url: string; link: string; expiresAt: number }> {
    const made = await executeServerCommand<{ url: string; link: string; expiresAt: number }, unknown>('svc-stack-payment-link', { stack: this.info.id, order: { ...SHOP_ORDER, ...order } });
    if (!made) throw new Error('the kit made no link');
    return made;
  }

  /** The beacons the shop's kit received (`POST …/timings`), as they came, with the kit's answer. */
  async beacons(): Promise<{ body: string; status: number }[]> {
    return (await executeServerCommand<{ body: string; status: number }[], unknown>('svc-beacons', { stack: this.info.id })) ?? [];
  }

  async order(orderNo: string) {
    return (await this.control('GET', `/sandbox/v1/orders/${orderNo}`)).body;
  }

  async callbacks(orderNo: string): Promise<{ status: number | null; acknowledged: boolean; body: string }[]> {
    return (await this.control('GET', `/sandbox/v1/callbacks?orderNo=${orderNo}`)).body.callbacks;
  }
}

export async function startStack(payload: { handler?: Record<string, unknown>; sandbox?: Record<string, unknown>; sandboxClock?: boolean } = {}): Promise<Stack> {
  const info = await executeServerCommand<StackInfo, typeof payload>('svc-dev-stack', payload);
  if (!info) throw new Error('the test runner did not start a dev stack');
  return new Stack(info);
}
