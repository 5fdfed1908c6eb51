/**
 * A sandbox and a merchant kit handler wired together on 127.0.0.1, as a merchant's own backend would be:
 * the kit signs and forwards, the sandbox answers and sends callbacks to the kit's /callbacks route.
 */
import { ORDER_TOKEN_HEADER } from '../../src/core/index.js';
import { createMerchantHandler, ServiceClient, toNodeListener, type CallbackEvent, type MerchantHandlerOptions } from '../../src/server/index.js';
import { createSandbox, DEFAULT_MERCHANT, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { listen } from './fake-service.js';

export interface Wired {
  sandbox: Sandbox;
  client: ServiceClient;
  merchantUrl: string;
  callbacks: CallbackEvent[];
  control<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  /** Posts to the merchant kit's route, as the element would (with the order token the create returned). */
  merchant<T = any>(path: string, body: unknown): Promise<T>;
  close(): Promise<void>;
}

export async function wire(
  options: { sandbox?: SandboxOptions; handler?: Partial<MerchantHandlerOptions> } = {},
): Promise<Wired> {
  const sandbox = await createSandbox({ tickMs: 50, ...options.sandbox });
  const merchantId = options.sandbox?.merchantId ?? DEFAULT_MERCHANT.merchantId;
  const privateKey = options.sandbox?.privateKey ?? DEFAULT_MERCHANT.privateKey;
  const callbacks: CallbackEvent[] = [];
  let merchantUrl = '';
  const handler = createMerchantHandler({
    merchantId,
    privateKey,
    environment: { baseUrl: sandbox.url },
    retryDelayMs: 1,
    logger: { warn: () => undefined, error: () => undefined },
    authorize: (order) => ({ ...order, callbackUrl: `${merchantUrl}/callbacks` }),
    onCallback: (event) => {
      callbacks.push(event);
    },
    ...options.handler,
  });
  const server = await listen(toNodeListener(handler));
  merchantUrl = server.url;
  const client = new ServiceClient({ merchantId, privateKey, environment: { baseUrl: sandbox.url }, retryDelayMs: 1 });
  const tokens = new Map<string, string>();
  return {
    sandbox,
    client,
    merchantUrl,
    callbacks,
    async control(method, path, body) {
      const response = await fetch(`${sandbox.url}${path}`, {
        method,
        headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: await response.json() };
    },
    async merchant(path, body) {
      const orderNo = (body as { orderNo?: string } | null)?.orderNo;
      const token = orderNo === undefined ? undefined : tokens.get(orderNo);
      const response = await fetch(`${merchantUrl}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...(token ? { [ORDER_TOKEN_HEADER]: token } : {}) },
        body: JSON.stringify(body),
      });
      const answer = await response.json();
      const created = answer?.data?.orderNo;
      const issued = response.headers.get(ORDER_TOKEN_HEADER);
      if (typeof created === 'string' && issued) tokens.set(created, issued);
      return answer;
    },
    async close() {
      await server.close();
      await sandbox.close();
    },
  };
}

/** Checks a condition every 20 ms until it holds, for at most `timeoutMs`; then fails with `what`. */
export async function eventually<T>(what: string, check: () => T | undefined | false, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
