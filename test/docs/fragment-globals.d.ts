// The names the documents' fragments use without defining them (docs/README.md, "Code samples"): what the rest of
// the program each fragment is a piece of would have defined. A fragment may use these and nothing else it does not
// define or import: every other name is checked against the package's types (test/docs/fragments.test.ts).
import type { Express } from 'express';
import type { CheckoutState } from 'svc-checkout/checkout';
import type { MerchantHandler } from 'svc-checkout/server';
import type { SandboxControl } from 'svc-checkout/sandbox/control';

declare global {
  /** The handler of `createMerchantHandler({ basePath: '/checkout', … })`, in the shop's server (by either name). */
  const checkout: MerchantHandler;
  const handler: MerchantHandler;
  /** The shop's Express app. */
  const app: Express;
  /** The shop's own database, as a fragment uses it. */
  const db: {
    markPaid(cart: string, orderNo: string): Promise<void>;
    flagForRefund(cart: string, orderNo: string): Promise<void>;
    flagForReview(cart: string, orderNo: string, why: string): Promise<void>;
  };
  /** The shop's carts, as its database keeps them. */
  const carts: { find(id: string): Promise<{ id: string; totalMinor: number; title: string; summary: string }> };
  /** A checkout token the shop's server rendered into the page. */
  const checkoutToken: string;
  /** The order token a create answered (Svc-Order-Token). */
  const orderToken: string;
  /** An order number of the service, and a callback's notifyId, as a test has them. */
  const orderNo: string;
  const notifyId: string;
  /** The sandbox's control API, `new SandboxControl('http://127.0.0.1:4010')`. */
  const sandbox: SandboxControl;
  /** The order the shop's page was rendered for. */
  const order: { checkoutToken: string; reference: string };
  /** The page's own UI: draws a session's state, shows a status, falls back to polling, navigates. */
  function render(state: CheckoutState): void;
  function show(status: string, failureCode?: string): void;
  function poll(schedule: unknown): void;
  function navigate(path: string): void;
  /** Saves the shopper's cart before they leave for the bank. */
  function saveCart(): Promise<void>;
}

export {};
