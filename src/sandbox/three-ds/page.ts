/**
 * The sandbox's 3-D Secure page: where `nextAction.redirectUrl` sends the payer. Approve or Decline settles
 * the order and sends the payer back to the order's `returnUrl`.
 */
import { formatMinorUnits } from '../../core/index.js';
import { framingSources } from '../http/guard.js';
import { FORM_TOKEN_FIELD } from '../paths.js';
import type { Order } from '../world/orders.js';

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

/** The page's words in each language it speaks: the payer's, from their browser's `Accept-Language`. */
const WORDS = {
  en: {
    dir: 'ltr',
    title: '3-D Secure check',
    badge: 'Sandbox',
    ask: 'Your bank asks you to confirm this payment.',
    done: (status: string) => `This payment is already ${status}. Continue to return to the shop.`,
    merchant: 'Merchant',
    amount: 'Amount',
    order: 'Order',
    payment: 'Payment number',
    account: 'Account',
    approve: 'Approve',
    decline: 'Decline',
    continue: 'Continue',
  },
  ar: {
    dir: 'rtl',
    title: 'تحقق 3-D Secure',
    badge: 'بيئة تجريبية',
    ask: 'يطلب منك بنكك تأكيد عملية الدفع هذه.',
    done: (status: string) => `عملية الدفع هذه منتهية بالفعل (${status}). تابِع للعودة إلى المتجر.`,
    merchant: 'التاجر',
    amount: 'المبلغ',
    order: 'الطلب',
    payment: 'رقم الدفعة',
    account: 'الحساب',
    approve: 'موافقة',
    decline: 'رفض',
    continue: 'متابعة',
  },
} as const;

export type ThreeDsLanguage = keyof typeof WORDS;

/** The first language of an `Accept-Language` header the page speaks, by preference (`ar-EG;q=0.9`…); else English. */
export function threeDsLanguage(acceptLanguage: string | undefined): { language: ThreeDsLanguage; locale: string } {
  const ranked = (acceptLanguage ?? '')
    .split(',')
    .map((part, index) => {
      const [tag = '', ...parameters] = part.trim().split(';');
      const quality = Number(/^\s*q=([\d.]+)\s*$/.exec(parameters.join(';'))?.[1] ?? 1);
      return { tag: tag.trim(), quality: Number.isFinite(quality) ? quality : 0, index };
    })
    .filter((entry) => /^[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*$/.test(entry.tag) && entry.quality > 0)
    .sort((a, b) => b.quality - a.quality || a.index - b.index);
  for (const { tag } of ranked) {
    const language = tag.split('-')[0]!.toLowerCase();
    if (language in WORDS) return { language: language as ThreeDsLanguage, locale: tag };
  }
  return { language: 'en', locale: 'en-GB' };
}

export function threeDsPage(
  order: Order,
  merchantName: string,
  decisionPath: (decision: 'approve' | 'decline') => string,
  formToken: string,
  acceptLanguage?: string,
): string {
  const { language, locale } = threeDsLanguage(acceptLanguage);
  const t = WORDS[language];
  const token = `<input type="hidden" name="${FORM_TOKEN_FIELD}" value="${escapeHtml(formToken)}">`;
  let amount: string;
  try {
    amount = formatMinorUnits(order.amount.total, order.amount.currency, locale);
  } catch {
    amount = formatMinorUnits(order.amount.total, order.amount.currency, language);
  }
  const waiting = order.status === 'PENDING' && order.nextAction === 'REDIRECT_3DS';
  // Identifiers (the order, the account) stay left to right inside an Arabic page, as the element writes them.
  const isolated = (text: string) => `<bdi dir="ltr">${escapeHtml(text)}</bdi>`;
  const state = waiting ? `<p>${t.ask}</p>` : `<p role="status">${t.done(isolated(order.status.toLowerCase()))}</p>`;
  const buttons = waiting
    ? `<form method="post" action="${escapeHtml(decisionPath('approve'))}">${token}<button class="approve" type="submit">${t.approve}</button></form>
       <form method="post" action="${escapeHtml(decisionPath('decline'))}">${token}<button class="decline" type="submit">${t.decline}</button></form>`
    : `<form method="post" action="${escapeHtml(decisionPath('approve'))}">${token}<button type="submit">${t.continue}</button></form>`;
  return `<!doctype html>
<html lang="${language}" dir="${t.dir}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${t.title} — ${escapeHtml(merchantName)}</title>
<style>
  :root { color-scheme: light dark; --text: #1a1a1a; --muted: #4a4a4a; --background: #fff; --approve: #0b6b2e; --decline: #a4161a; --badge: #8a4b00; --focus: #1d4ed8; }
  @media (prefers-color-scheme: dark) {
    :root { --text: #e4e2e6; --muted: #c4c6cf; --background: #1b1b1f; --approve: #7fd88f; --decline: #ffb4ab; --badge: #ffb95c; --focus: #a8c7fa; }
  }
  body { font: 16px/1.5 system-ui, 'Noto Sans Arabic', sans-serif; max-width: 28rem; margin: 3rem auto; padding: 0 1rem; color: var(--text); background: var(--background); }
  .badge { display: inline-block; background: var(--badge); color: var(--background); border-radius: 4px; padding: 0 .5rem; font-size: .875rem; }
  dl { display: grid; grid-template-columns: auto 1fr; gap: .25rem 1rem; }
  dt { color: var(--muted); }
  dd { margin: 0; }
  .amount { font-weight: 700; }
  .actions { display: flex; flex-wrap: wrap; gap: 1rem; margin-block-start: 1.5rem; }
  button { font: inherit; min-block-size: 44px; min-inline-size: 44px; padding: .6rem 1.4rem; border-radius: 6px; border: 2px solid var(--text); background: var(--background); color: var(--text); cursor: pointer; }
  button.approve { background: var(--approve); border-color: var(--approve); color: var(--background); }
  button.decline { color: var(--decline); border-color: var(--decline); }
  button:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
</style>
</head>
<body>
<main>
<p><span class="badge">${t.badge}</span></p>
<h1>${t.title}</h1>
${state}
<dl>
  <dt>${t.merchant}</dt><dd>${escapeHtml(merchantName)}</dd>
  <dt>${t.amount}</dt><dd class="amount">${escapeHtml(amount)}</dd>
  <dt>${t.order}</dt><dd>${isolated(order.reference)}</dd>
  <dt>${t.payment}</dt><dd>${isolated(order.orderNo)}</dd>
  <dt>${t.account}</dt><dd>${isolated(`•••• ${order.bank?.accountLast4 ?? ''}`)}</dd>
</dl>
<div class="actions">
${buttons}
</div>
</main>
</body>
</html>`;
}
