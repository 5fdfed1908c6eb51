/**
 * The routes of the sandbox's 3-D Secure check: the page `nextAction.redirectUrl` points at (page.ts
 * writes it), and its Approve or Decline form, which settles the order and sends the payer back to its
 * `returnUrl`.
 */
import type { ServerResponse } from 'node:http';
import { fillPath, matchPath } from '../../core/index.js';
import { decodeUtf8 } from '../../core/signing.js';
import type { ResolvedMerchant } from '../config.js';
import type { DevelopmentGuard } from '../http/guard.js';
import type { OrderBook } from '../world/orders.js';
import { FORM_TOKEN_FIELD, SANDBOX_PATHS } from '../paths.js';
import type { Route } from '../http/router.js';
import { FAILURES } from '../scenarios/test-values.js';
import { returnLocation, threeDsPage, threeDsPolicy } from './page.js';

export interface ThreeDsContext {
  state: { tick(): void };
  book: OrderBook;
  merchantsById: ReadonlyMap<string, ResolvedMerchant>;
  guard: DevelopmentGuard;
  publicUrl: string;
}

export function threeDsRoutes({ state, book, merchantsById, guard, publicUrl }: ThreeDsContext): Route {
  function serveThreeDsPage(
    orderNo: string,
    acceptLanguage: string | undefined,
    response: ServerResponse,
    finish: (status: number, body: unknown) => void,
  ): void {
    state.tick();
    const order = book.get(orderNo);
    if (!order?.bank) return finish(404, { message: `no 3-D Secure check for order ${orderNo}` });
    const merchantName = merchantsById.get(order.merchantId)?.name ?? '';
    // Absolute, so that the page works wherever the sandbox is mounted (a dev server passes /sandbox/ through).
    const html = threeDsPage(
      order,
      merchantName,
      (choice) => `${publicUrl}${fillPath(SANDBOX_PATHS.threeDsDecision, { orderNo, decision: choice })}`,
      guard.formToken(orderNo),
      acceptLanguage, // the payer's language, as their browser asks for pages
    );
    response.writeHead(200, {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': threeDsPolicy(publicUrl),
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    });
    response.end(html);
  }

  function decideThreeDs(
    orderNo: string,
    choice: string,
    form: URLSearchParams,
    response: ServerResponse,
    finish: (status: number, body: unknown) => void,
  ): void {
    state.tick();
    const order = book.get(orderNo);
    if (!order?.bank) return finish(404, { message: `no 3-D Secure check for order ${orderNo}` });
    if (choice !== 'approve' && choice !== 'decline') return finish(404, { message: 'decide approve or decline' });
    // Only the form of the page the sandbox served for this order decides it: never another site's post.
    if (!guard.checkFormToken(orderNo, form.get(FORM_TOKEN_FIELD))) return finish(403, { message: 'the form token is missing or wrong' });
    // Made before the order is settled, so that nothing can fail between the decision and the way back.
    const location = returnLocation(order.bank.returnUrl);
    if (location === undefined) return finish(409, { message: `order ${orderNo} has no return address to send the payer to` });
    if (order.status === 'PENDING' && order.nextAction === 'REDIRECT_3DS') {
      if (choice === 'approve') book.completeStep(order, order.bank.scenario.outcome, '3-D Secure approved');
      else book.complete(order, 'FAIL', FAILURES.threeDsDeclined, '3-D Secure declined');
    }
    response.writeHead(303, { Location: location, 'Cache-Control': 'no-store' });
    response.end();
  }

  return ({ request, method, url, raw, response, finish }) => {
    const threeDs = matchPath(SANDBOX_PATHS.threeDsPage, url.pathname);
    const decision = matchPath(SANDBOX_PATHS.threeDsDecision, url.pathname);
    if (threeDs && method === 'GET') {
      serveThreeDsPage(threeDs['orderNo'] ?? '', request.headers['accept-language'], response, finish);
      return true;
    }
    if (decision && method === 'POST') {
      decideThreeDs(decision['orderNo'] ?? '', decision['decision'] ?? '', new URLSearchParams(decodeUtf8(raw) ?? ''), response, finish);
      return true;
    }
    return false;
  };
}
