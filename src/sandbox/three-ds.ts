/**
 * The sandbox's 3-D Secure page: where `nextAction.redirectUrl` sends the payer. Approve or Decline settles
 * the order and sends the payer back to the order's `returnUrl`.
 */
import { formatMinorUnits } from '../core/index.js';
import { framingSources } from './guard.js';
import { FORM_TOKEN_FIELD } from './paths.js';
import type { Order } from './orders.js';

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => escapes[char] as string);
}

/**
 * The `Location` that sends the payer back to `returnUrl`: the URL as the WHATWG URL standard writes it, all in
 * ASCII (a path or query in Arabic percent-encoded as UTF-8, a host in punycode), which an HTTP header can carry.
 * Undefined when it is no URL (the create's rules let none through).
 */
export function returnLocation(returnUrl: string): string | undefined {
  try {
    return new URL(returnUrl).href;
  } catch {
    return undefined;
  }
}

/**
 * Only the page's own stylesheet; forms may post here and then redirect anywhere (the merchant's return URL);
 * framed only by pages on this machine.
 */
export function threeDsPolicy(publicUrl: string): string {
  return `default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors ${framingSources(publicUrl)}`;
}

export function threeDsPage(
  order: Order,
  merchantName: string,
  decisionPath: (decision: 'approve' | 'decline') => string,
  formToken: string,
): string {
  const token = `<input type="hidden" name="${FORM_TOKEN_FIELD}" value="${escapeHtml(formToken)}">`;
  const amount = formatMinorUnits(order.amount.total, order.amount.currency, 'en-GB');
  const waiting = order.status === 'PENDING' && order.nextAction === 'REDIRECT_3DS';
  const state = waiting
    ? '<p>Your bank asks you to confirm this payment.</p>'
    : `<p role="status">This payment is already ${escapeHtml(order.status.toLowerCase())}. Continue to return to the shop.</p>`;
  const buttons = waiting
    ? `<form method="post" action="${escapeHtml(decisionPath('approve'))}">${token}<button class="approve" type="submit">Approve</button></form>
       <form method="post" action="${escapeHtml(decisionPath('decline'))}">${token}<button class="decline" type="submit">Decline</button></form>`
    : `<form method="post" action="${escapeHtml(decisionPath('approve'))}">${token}<button type="submit">Continue</button></form>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>3-D Secure check — sandbox</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 28rem; margin: 3rem auto; padding: 0 1rem; color: #1a1a1a; }
  .badge { display: inline-block; background: #8a4b00; color: #fff; border-radius: 4px; padding: 0 .5rem; font-size: .875rem; }
  dl { display: grid; grid-template-columns: auto 1fr; gap: .25rem 1rem; }
  dt { color: #4a4a4a; }
  .actions { display: flex; gap: 1rem; margin-top: 1.5rem; }
  button { font: inherit; padding: .6rem 1.4rem; border-radius: 6px; border: 2px solid #1a1a1a; background: #fff; cursor: pointer; }
  button.approve { background: #0b6b2e; border-color: #0b6b2e; color: #fff; }
  button.decline { background: #fff; color: #a4161a; border-color: #a4161a; }
  button:focus-visible { outline: 3px solid #1d4ed8; outline-offset: 2px; }
</style>
</head>
<body>
<main>
<p><span class="badge">Sandbox</span></p>
<h1>3-D Secure check</h1>
${state}
<dl>
  <dt>Merchant</dt><dd>${escapeHtml(merchantName)}</dd>
  <dt>Amount</dt><dd>${escapeHtml(amount)}</dd>
  <dt>Order</dt><dd>${escapeHtml(order.reference)}</dd>
  <dt>Payment number</dt><dd>${escapeHtml(order.orderNo)}</dd>
  <dt>Account</dt><dd>•••• ${escapeHtml(order.bank?.accountLast4 ?? '')}</dd>
</dl>
<div class="actions">
${buttons}
</div>
</main>
</body>
</html>`;
}
