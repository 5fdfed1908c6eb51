/**
 * The merchant kit under toNodeListener in front of the real sandbox (a startStack, started again with other
 * options in front of the same sandbox), for the status stream's suites: its status queries counted, its timers
 * counted (every timer a stream leaves armed shows), its clock movable, and orders made through it as the
 * element makes them.
 */
import { CHECKOUT_TOKEN_HEADER, MERCHANT_PATHS, ORDER_TOKEN_HEADER, SERVICE_PATHS } from '../../src/core/index.js';
import type { MerchantHandler, MerchantHandlerOptions, Timers } from '../../src/server/index.js';
import { createSandbox, DEFAULT_MERCHANT, SandboxControl, startStack, type Sandbox, type Stack } from '../../src/sandbox/index.js';
import { posRequest } from '../core/fixtures.js';
import { tokenFor } from './tokens.js';

export const credentials = { merchantId: DEFAULT_MERCHANT.merchantId, privateKey: DEFAULT_MERCHANT.privateKey };

/** Real timers, counted. */
export function countedTimers(): Timers & { pending: Set<unknown> } {
  const pending = new Set<unknown>();
  return {
    pending,
    setTimeout(callback, ms) {
      const handle = setTimeout(() => {
        pending.delete(handle);
        callback();
      }, ms);
      pending.add(handle);
      return handle;
    },
    clearTimeout(handle) {
      pending.delete(handle);
      clearTimeout(handle as NodeJS.Timeout);
    },
  };
}

export interface CreatedOrder {
  orderNo: string;
  reference: string;
  sn: string;
  orderToken: string;
  checkoutToken: string;
}

export interface StreamKit {
  sandbox: Sandbox;
  control: SandboxControl;
  /** The kit's address (changes when it restarts). */
  readonly url: string;
  readonly handler: MerchantHandler;
  timers: ReturnType<typeof countedTimers>;
  /** Status queries the kit sent to the service. */
  statusQueries: number;
  /** Added to the kit's clock. */
  clockOffsetMs: number;
  /** Starts the kit again with other options (the same sandbox). */
  restart(options?: Partial<MerchantHandlerOptions>): Promise<void>;
  createOrder(overrides?: Record<string, unknown>): Promise<CreatedOrder>;
  close(): Promise<void>;
}

let serial = 0;

export async function startStreamKit(options: Partial<MerchantHandlerOptions> = {}): Promise<StreamKit> {
  const sandbox = await createSandbox({ tickMs: 20 });
  let stack: Stack | undefined;
  const kit: StreamKit = {
    sandbox,
    control: new SandboxControl(sandbox.url),
    get url() {
      return stack!.url;
    },
    get handler() {
      return stack!.handler;
    },
    timers: countedTimers(),
    statusQueries: 0,
    clockOffsetMs: 0,
    async restart(more = {}) {
      await stack?.close();
      stack = await startStack({
        sandbox,
        handler: {
          logger: { warn: () => undefined, error: () => undefined },
          fetch: (input, init) => {
            // The streams' queries, about an order by its number (a payment's look at the other attempts of its
            // checkout asks by reference: docs/one-payment.md).
            if (String(input).endsWith(SERVICE_PATHS.status) && String(init?.body).includes('"orderNo"')) kit.statusQueries += 1;
            return fetch(input, init);
          },
          timers: kit.timers,
          now: () => Date.now() + kit.clockOffsetMs,
          ...more,
        },
      });
    },
    async createOrder(overrides = {}) {
      serial += 1;
      const body = posRequest({ reference: `stream-${process.pid}-${serial}`, sn: `SN-STREAM-${serial}`, ...overrides });
      const checkoutToken = await tokenFor(credentials, body);
      const response = await fetch(`${kit.url}${MERCHANT_PATHS.create}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', [CHECKOUT_TOKEN_HEADER]: checkoutToken },
        body: JSON.stringify(body),
      });
      const answer = await response.json();
      if (answer.code !== '00000') throw new Error(`create failed: ${JSON.stringify(answer)}`);
      return { orderNo: answer.data.orderNo, reference: body.reference, sn: body.sn, orderToken: response.headers.get(ORDER_TOKEN_HEADER)!, checkoutToken };
    },
    async close() {
      await stack?.close();
      await sandbox.close();
    },
  };
  await kit.restart(options);
  return kit;
}
