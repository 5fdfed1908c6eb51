/**
 * A sandbox and the merchant kit in front of it, wired as a shop's backend is on a developer's machine: the kit
 * signs as the sandbox's merchant and calls the sandbox, the sandbox sends its callbacks to the kit's callback
 * route, and each verified callback is kept. The one place where kit and sandbox are wired together: the dev
 * stack (dev-stack.ts, for a dev server and the browser tests), the demo, the Node test suites and
 * `npm run load` all start theirs here.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MERCHANT_PATHS } from '../../core/index.js';
import {
  createMerchantHandler,
  issueCheckoutToken,
  toNodeListener,
  type CallbackEvent,
  type CheckoutOrder,
  type IssueCheckoutTokenOptions,
  type MerchantHandler,
  type MerchantHandlerOptions,
  type NodeListener,
  type HandlerPaymentLinkOptions,
  type PaymentLink,
  type PaymentLinkOrder,
} from '../../server/index.js';
import { SandboxControl } from '../control/client.js';
import { DEFAULT_MERCHANT, type ResolvedMerchant } from '../config.js';
import { createSandbox, type Sandbox, type SandboxOptions } from '../server.js';

export interface StackOptions {
  /** A sandbox already running, or the options of one to start (closed with the stack). Default: a new sandbox. */
  sandbox?: Sandbox | SandboxOptions;
  /** Where the kit is mounted. Default: at the root. */
  basePath?: string;
  /**
   * Where the kit is reached (an origin, and any path prefix), when the caller serves `listener` itself (a dev
   * server's middleware). Default: the kit gets a server of its own on 127.0.0.1, on a free port.
   */
  publicUrl?: string;
  /** Options of the kit's handler; its merchant, key, service address and callback address come from the stack. */
  handler?: Partial<MerchantHandlerOptions>;
}

export interface Stack {
  sandbox: Sandbox;
  /** The sandbox's merchant the kit signs as (its first). */
  merchant: ResolvedMerchant;
  handler: MerchantHandler;
  /** The kit under node:http. */
  listener: NodeListener;
  /** Where the kit's routes are: its public URL, or its own server's, with the base path. */
  url: string;
  basePath: string;
  /** Every verified callback the kit received, oldest first. */
  callbacks: CallbackEvent[];
  /** Called with each verified callback as it arrives. */
  onCallback(listener: (event: CallbackEvent) => void): () => void;
  /** A checkout token for an order, as the shop's server would render it into its page. */
  checkoutToken(order: CheckoutOrder, options?: IssueCheckoutTokenOptions): Promise<string>;
  /**
   * A payment link made by the kit (`handler.paymentLink`, at the stack's address unless `shopUrl` says another), told
   * to the sandbox, whose dashboard lists it with its checkout's orders.
   */
  paymentLink(order: PaymentLinkOrder, options?: HandlerPaymentLinkOptions): Promise<PaymentLink>;
  /** Stops the kit's reconciliation sweeps, closes its own server, and the sandbox when the stack started it. */
  close(): Promise<void>;
}

function isSandbox(value: Sandbox | SandboxOptions): value is Sandbox {
  return typeof (value as Sandbox).close === 'function' && typeof (value as Sandbox).url === 'string';
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const given = options.sandbox && isSandbox(options.sandbox) ? options.sandbox : undefined;
  const sandbox = given ?? (await createSandbox(options.sandbox as SandboxOptions | undefined));
  const basePath = (options.basePath ?? '').replace(/\/+$/, '');
  let server: Server | undefined;
  try {
    let origin = options.publicUrl?.replace(/\/+$/, '');
    if (origin === undefined) {
      server = createServer((request, response) => listener(request, response));
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject);
        server!.listen(0, '127.0.0.1', resolve);
      });
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    }
    const merchant = sandbox.merchants[0] ?? DEFAULT_MERCHANT;
    const callbacks: CallbackEvent[] = [];
    const listeners = new Set<(event: CallbackEvent) => void>();
    const handler = createMerchantHandler({
      merchantId: merchant.merchantId,
      privateKey: merchant.privateKey,
      environment: { baseUrl: sandbox.url },
      ...(basePath ? { basePath } : {}),
      callbackUrl: `${origin}${basePath}${MERCHANT_PATHS.callbacks}`,
      // Where browsers reach the kit: the isolated frame's policy names it (WebKit needs it), never a request's Host.
      publicOrigin: new URL(origin).origin,
      ...options.handler,
      // A dev server that serves the kit serves the shop's pages too: where 3-D Secure sends a payer back.
      ...(options.publicUrl ? { returnUrlOrigins: [new URL(origin).origin, ...(options.handler?.returnUrlOrigins ?? [])] } : {}),
      onCallback: async (event) => {
        callbacks.push(event);
        for (const listener of listeners) listener(event);
        await options.handler?.onCallback?.(event);
      },
    });
    const listener = toNodeListener(handler);
    const own = server;
    return {
      sandbox,
      merchant,
      handler,
      listener,
      url: `${origin}${basePath}`,
      basePath,
      callbacks,
      onCallback(added) {
        listeners.add(added);
        return () => listeners.delete(added);
      },
      checkoutToken: (order, tokenOptions) => issueCheckoutToken(merchant, order, tokenOptions),
      async paymentLink(order, linkOptions = {}) {
        const made = await handler.paymentLink(order, { shopUrl: origin, ...linkOptions });
        const { reference, amount, product } = order;
        await new SandboxControl(sandbox.url).addLink({ url: made.url, reference, amount, productName: product.name, expiresAt: made.expiresAt });
        return made;
      },
      async close() {
        handler.close(); // its reconciliation sweeps
        if (own) {
          own.closeAllConnections();
          await new Promise<void>((resolve) => own.close(() => resolve()));
        }
        if (!given) await sandbox.close();
      },
    };
  } catch (error) {
    server?.close();
    if (!given) await sandbox.close();
    throw error;
  }
}
