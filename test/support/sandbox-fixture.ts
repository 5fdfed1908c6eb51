/**
 * A sandbox and a merchant kit handler wired together on 127.0.0.1 (startStack), as a merchant's own backend
 * would be: the kit signs and forwards, the sandbox answers and sends callbacks to the kit's /callbacks route.
 */
import { CHECKOUT_TOKEN_HEADER, MERCHANT_PATHS, ORDER_TOKEN_HEADER } from '../../src/core/index.js';
import { ServiceClient, type MerchantHandler, type MerchantHandlerOptions } from '../../src/server/index.js';
import { type CallbackEvent } from '../../src/server/callbacks/hand-over.js';
import { SandboxControl, startStack, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { tokenFor } from './tokens.js';

export interface Wired {
  sandbox: Sandbox;
  client: ServiceClient;
  merchantUrl: string;
  handler: MerchantHandler;
  callbacks: CallbackEvent[];
  /** The sandbox's control API. */
  sandboxControl: SandboxControl;
  control<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  /**
   * Posts to the merchant kit's route as the element would: a create or a status query with a checkout token
   * for the order its body names (as the shop's server would have rendered it), an order's own calls with the
   * order token the create returned.
   */
  merchant<T = any>(path: string, body: unknown): Promise<T>;
  close(): Promise<void>;
}

export async function wire(
  options: { sandbox?: SandboxOptions; handler?: Partial<MerchantHandlerOptions> } = {},
): Promise<Wired> {
  const stack = await startStack({
    sandbox: { tickMs: 50, ...options.sandbox },
    handler: {
      retryDelayMs: 1,
      logger: { warn: () => undefined, error: () => undefined },
      // The fixtures' shop, where bank account payers come back to.
      returnUrlOrigins: ['https://shop.example'],
      ...options.handler,
    },
  });
  const { sandbox, merchant, url: merchantUrl } = stack;
  const { merchantId, privateKey } = merchant;
  const client = new ServiceClient({ merchantId, privateKey, environment: { baseUrl: sandbox.url }, retryDelayMs: 1 });
  const sandboxControl = new SandboxControl(sandbox.url);
  const orderTokens = new Map<string, string>();
  return {
    sandbox,
    client,
    merchantUrl,
    handler: stack.handler,
    callbacks: stack.callbacks,
    sandboxControl,
    control: (method, path, body) => sandboxControl.request(method as 'GET' | 'POST' | 'DELETE', path, body),
    async merchant(path, body) {
      const value = (body ?? {}) as { orderNo?: string; reference?: string };
      const headers: Record<string, string> = { 'Content-Type': 'application/json' };
      const orderToken = value.orderNo === undefined ? undefined : orderTokens.get(value.orderNo);
      if (orderToken) headers[ORDER_TOKEN_HEADER] = orderToken;
      else if (path === MERCHANT_PATHS.create || path === MERCHANT_PATHS.status) {
        headers[CHECKOUT_TOKEN_HEADER] = await tokenFor({ merchantId, privateKey }, body);
      }
      const response = await fetch(`${merchantUrl}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
      const answer = await response.json();
      const created = answer?.data?.orderNo;
      const issued = response.headers.get(ORDER_TOKEN_HEADER);
      if (typeof created === 'string' && issued) orderTokens.set(created, issued);
      return answer;
    },
    close: () => stack.close(),
  };
}

/** Checks a condition every 20 ms until it holds, for at most `timeoutMs`; then fails with `what`. */
export async function eventually<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 5_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
