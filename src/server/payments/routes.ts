/**
 * The element's calls (DESIGN.md §3): create, OTP, PIN, resend and status. Each first proves which order it is about —
 * the checkout token for a create or a query by reference, the order token for an order's own calls — and nothing
 * reaches the service without that proof. What the service receives is built from the token's claims and only the
 * payer's fields of the body, with only the fields the service needs.
 */
import type { KitConfig } from '../config/handler.js';
import type { KitRequest } from '../http/http.js';
import type { ServiceClient } from '../service/client.js';
import type { ElementOperation } from '../routes/table.js';
import { codeRoute } from './codes.js';
import { paymentContext, type PaymentContext, type Route } from './context.js';
import { createRoute, type CreatedOrder } from './create.js';
import { statusRoutes, type StatusRoutes } from './status.js';
import { tickets } from './tickets.js';

export { OrderRejection } from './rejection.js';
export type { ActionOperation, AuthorizeActionHook, AuthorizeHook, OrderSource } from '../config/handler.js';
export type { CreatedOrder } from './create.js';
export type { OpenClient, ProgressQuery, ProvenStatusQuery, StatusProofs } from './status.js';
export type { Route } from './context.js';

export interface PaymentRoutesOptions {
  config: KitConfig;
  client: ServiceClient;
  /** The kit's own callback URL for an order made through this request, when the token names none. */
  callbackUrlFor(request: KitRequest): string | undefined;
  /** Sees the data of every successful status query the kit answers (the status streams learn from it). */
  observeStatus?: ((data: Record<string, unknown>) => void) | undefined;
  /**
   * Sees every order the kit learns of: each the service created and left pending, and each a status answer tells of
   * (reconciliation keeps it until it settles).
   */
  observeCreated?: ((order: CreatedOrder) => void) | undefined;
  /** The payer acted on an order (a code the service took, or sent again): its streams poll briskly. */
  observeAction?: ((order: { orderNo: string; reference: string }) => void) | undefined;
}

export interface PaymentRoutes extends Omit<StatusRoutes, 'status'> {
  routes: Readonly<Record<ElementOperation, Route>>;
  /** The token of an order the kit vouches for, as a create or a status query by reference answers it. */
  orderTokenFor: PaymentContext['orderTokenFor'];
  /** Who a request's client is, as the per-client limits count it (undefined: the kit cannot tell). */
  clientOf(request: KitRequest): string | undefined;
}

export function paymentRoutes(options: PaymentRoutesOptions): PaymentRoutes {
  const context = paymentContext(options.config, options.client);
  const { status, ...statuses } = statusRoutes(context, options.observeStatus, options.observeCreated);
  const ticketing = tickets(context, options.callbackUrlFor);
  return {
    ...statuses,
    routes: {
      create: createRoute(context, { ...options, tickets: ticketing }),
      ticket: ticketing.route,
      otp: codeRoute(context, 'otp', options.observeAction),
      pin: codeRoute(context, 'pin', options.observeAction),
      resendOtp: codeRoute(context, 'resendOtp', options.observeAction),
      status,
    },
    orderTokenFor: context.orderTokenFor,
    clientOf: (request) => context.clientKeyFor(context.clientAddressOf(request)),
  };
}
