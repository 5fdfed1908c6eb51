/**
 * A sandbox and merchant kit of this test file's own, started by the test runner (web-test-runner.config.mjs)
 * and reached on the page's origin under /stacks/<id>/.
 */
import { executeServerCommand } from '@web/test-runner-commands';

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

  /** Calls the sandbox's control API. */
  async control<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const response = await fetch(`${this.info.prefix}${path}`, {
      method,
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as T };
  }

  /** A POS order created through the merchant kit by someone else (another tab, another device). */
  async createPosOrderElsewhere(reference: string, sn: string): Promise<{ orderNo: string }> {
    const answer = await fetch(`${this.endpoint}/payments`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ reference, amount: { total: 12_500, currency: 'EGP' }, product: { name: 'Beans' }, payMethod: 'Pos', sn, country: 'EG' }),
    }).then((response) => response.json());
    if (answer.code !== '00000') throw new Error(`the order was not created: ${answer.code}`);
    return answer.data;
  }

  async order(orderNo: string) {
    return (await this.control('GET', `/sandbox/v1/orders/${orderNo}`)).body;
  }

  async callbacks(orderNo: string): Promise<{ status: number | null; acknowledged: boolean; body: string }[]> {
    return (await this.control('GET', `/sandbox/v1/callbacks?orderNo=${orderNo}`)).body.callbacks;
  }
}

export async function startStack(payload: { handler?: Record<string, unknown>; sandbox?: Record<string, unknown> } = {}): Promise<Stack> {
  const info = await executeServerCommand<StackInfo, typeof payload>('svc-dev-stack', payload);
  if (!info) throw new Error('the test runner did not start a dev stack');
  return new Stack(info);
}
