/**
 * Tickets (`POST /payments/ticket`): how the isolated frame's bank account create is proved where orders come from
 * the shop's `authorize` hook, or in development from the browser (docs/isolated-fields.md). The frame's create comes
 * from an opaque origin without the payer's cookie, so a hook that finds the cart by the session could not decide it.
 * The page asks first, from its own origin with its cookie: the kit runs `authorize` on the order less the bank
 * details (which the page never has), keeps the order it decided in the ticket store, and answers a ticket — its id,
 * the amount and the merchant's name under the kit's tag, good for 15 minutes. The frame shows the payer that amount
 * and name, and its create carries the ticket (`Svc-Ticket`): the kit takes the kept order and adds only the bank
 * details of the body. A ticket makes one order: the first create that reaches the service uses it up.
 */
import {
  BANK_ACCOUNT_DETAILS,
  base64UrlEncode,
  envelopeForViolations,
  isPlainObject,
  TICKET_SECONDS,
  validateCreateRequest,
  type CreatePaymentRequest,
} from '../../core/index.js';
import { envelopeAnswer, logValue, webRequestOf, type Answer, type KitRequest } from '../http/http.js';
import { throttle, tooMany } from '../limits/throttle.js';
import { issueTicket, verifyTicket } from '../tokens/tokens.js';
import { browserOrders } from './browser-order.js';
import { invalid, notAnObject, refused, type PaymentContext, type Route } from './context.js';

/** The payer's bank details: typed in the isolated frame only, never in a ticket's order. */
const BANK_DETAILS = Object.keys(BANK_ACCOUNT_DETAILS.fields);

export interface Tickets {
  /** `POST /payments/ticket`. */
  route: Route;
  /**
   * The order a create that carries a ticket makes: the kept order, with the bank details of `body` and nothing
   * else of it; or the refusal to answer (a ticket forged, expired, used, or not this kit's).
   */
  redeem(ticket: string, body: Record<string, unknown>): Promise<{ order: Record<string, unknown>; id: string } | { refusal: Answer }>;
  /** Uses up the ticket `id`, just before its order is sent: false when another create used it first. */
  use(id: string): Promise<boolean>;
}

export function tickets(context: PaymentContext, callbackUrlFor: (request: KitRequest) => string | undefined): Tickets {
  const { config } = context;
  const { credentials, logger } = config;
  const orders = browserOrders(context, callbackUrlFor);
  const store = config.stores.tickets;

  async function route(value: unknown, request: KitRequest): Promise<Answer> {
    // Where checkout tokens decide the orders, the frame's create carries the token itself: no ticket is needed.
    if (config.orderSource === 'checkout-token') return refused('missing');
    if (!isPlainObject(value)) return notAnObject();
    if (value['payMethod'] !== 'BankAccount') {
      return invalid({ field: 'payMethod', rule: 'ticket', message: 'a ticket is for a BankAccount create, whose bank details the isolated frame adds' });
    }
    const sent = BANK_DETAILS.find((field) => Object.hasOwn(value, field));
    if (sent) return invalid({ field: sent, rule: 'isolated', message: `${sent} is typed in the isolated frame and sent with its create, never with a ticket request` });
    const proposed = orders.orderOf(value, request);
    const checked = validateCreateRequest(proposed, { without: BANK_DETAILS });
    if (!checked.ok) return invalid(...checked.violations);
    const wrongReturn = orders.returnUrlViolation(checked.value, false);
    if (wrongReturn) return invalid(wrongReturn);
    const throttled = await throttle(config.stores.throttle, config.limits, [['ticketsPerClient', context.clientKeyFor(context.clientAddressOf(request))]]);
    if (throttled) {
      logger.warn(`svc-checkout: a ticket was refused by the ${throttled.limit} limit (reference ${logValue(checked.value.reference)})`);
      return tooMany(throttled);
    }
    let order = checked.value;
    if (config.authorize) {
      const authorized = await context.hook(() => config.authorize!(order, webRequestOf(request)));
      if (!authorized.ok) return authorized.response;
      if (authorized.value) order = authorized.value;
      else if (config.orderSource === 'authorize') throw new TypeError('authorize must return the order, with its amount and reference from your records');
      // What the hook answered is checked as the create would check it (the bank details aside: the frame adds them).
      const decided = validateCreateRequest(order, { without: BANK_DETAILS });
      if (!decided.ok) return envelopeAnswer(envelopeForViolations(decided.violations));
      order = decided.value;
    }
    const id = randomId();
    const kept: Record<string, unknown> = { ...order };
    for (const field of BANK_DETAILS) delete kept[field];
    await store.keep(id, JSON.stringify(kept), TICKET_SECONDS * 1000);
    const ticket = await issueTicket(credentials.privateKey, {
      merchantId: credentials.merchantId,
      id,
      amount: { total: order.amount.total, currency: order.amount.currency },
      merchantName: config.merchantName,
      expiresAt: Math.floor(config.now() / 1000) + TICKET_SECONDS,
    });
    // The reference the shop decided: the page looks its order up by it, should the create's answer be lost.
    return envelopeAnswer({ code: '00000', message: 'success', data: { ticket, reference: order.reference, expiresIn: TICKET_SECONDS } });
  }

  async function redeem(ticket: string, body: Record<string, unknown>) {
    const proof = await verifyTicket(ticket, credentials, config.now());
    if (!proof.ok) return { refusal: refused(proof.reason) };
    const text = await store.read(proof.claims.id);
    if (text === undefined) return { refusal: refused('used') };
    const kept = JSON.parse(text) as CreatePaymentRequest;
    // The ticket's amount is the kept order's: the tag vouches for what the frame showed, the store for the rest.
    if (kept.amount.total !== proof.claims.amount.total || kept.amount.currency !== proof.claims.amount.currency) return { refusal: refused('forged') };
    const order: Record<string, unknown> = { ...kept };
    for (const field of BANK_DETAILS) if (Object.hasOwn(body, field)) order[field] = body[field];
    return { order, id: proof.claims.id };
  }

  return {
    route,
    redeem,
    use: async (id) => (await store.take(id)) !== undefined,
  };
}

/** 128 random bits, base64url (22 characters). */
function randomId(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return base64UrlEncode(bytes);
}
