/**
 * The pay page's HTML (docs/pay-links.md): the merchant's name, the order (product, amount), the element as a shop
 * would host it, in English or Arabic, light or dark; and the pages that refuse a link (expired: 410; not one the kit
 * made: 404), in both languages. No inline script at all, and one inline stylesheet allowed by its hash: the policy
 * is strict (`script-src 'self'`, no `unsafe-inline`), the page cannot be framed, and it sends no referrer (its address
 * is a bearer credential).
 */
import { ARABIC_LATIN_DIGITS, formatMinorUnits, type Amount } from '../../core/index.js';

export const PAGE_LANGUAGES = ['en', 'ar'] as const;
export type PageLanguage = (typeof PAGE_LANGUAGES)[number];

interface Words {
  dir: 'ltr' | 'rtl';
  /** How the other language is offered, in its own words. */
  switchTo: string;
  languages: string;
  payTo: (merchant: string) => string;
  pay: string;
  amount: string;
  needsScript: string;
  bearer: string;
  expiredTitle: string;
  expired: (merchant: string | undefined) => string;
  invalidTitle: string;
  invalid: string;
  moveTitle: string;
  move: string;
  copyLabel: string;
  qrLabel: string;
  whereTitle: string;
  /** Where a reference code is paid, unless the shop says (`whereToPay`). */
  whereToPay: string;
}

/** Every word the pay page says, in each language it speaks. */
export const PAY_PAGE_WORDS: Readonly<Record<PageLanguage, Words>> = {
  en: {
    dir: 'ltr',
    switchTo: 'English',
    languages: 'Language',
    payTo: (merchant) => `Pay ${merchant}`,
    pay: 'Payment',
    amount: 'Amount',
    needsScript: 'This page needs JavaScript to take the payment. Turn it on, or open the link in another browser.',
    bearer: 'Keep this link to yourself: whoever has it can pay this order and see whether it is paid.',
    expiredTitle: 'This payment link has expired',
    expired: (merchant) => `Nothing was charged. Ask ${merchant ?? 'the shop'} for a new link.`,
    invalidTitle: 'This payment link is not valid',
    invalid: 'Check that the whole link was copied, or ask the shop for a new one.',
    moveTitle: 'Pay on your phone',
    move: "Scan this code with your phone's camera to open this page there, or copy its link.",
    copyLabel: 'Link to this page',
    qrLabel: 'QR code of the link to this page',
    whereTitle: 'Paying by reference code',
    whereToPay: 'A reference code is paid later, in cash or from your bank, wherever the shop tells you its codes are accepted. Keep the code (print this page, or save it) until you have paid, and pay before it expires.',
  },
  ar: {
    dir: 'rtl',
    switchTo: 'العربية',
    languages: 'اللغة',
    payTo: (merchant) => `الدفع إلى ${merchant}`,
    pay: 'الدفع',
    amount: 'المبلغ',
    needsScript: 'تحتاج هذه الصفحة إلى JavaScript لإتمام الدفع. فعّله أو افتح الرابط في متصفح آخر.',
    bearer: 'احتفظ بهذا الرابط لنفسك: من يملكه يستطيع دفع هذا الطلب ومعرفة ما إذا كان قد دُفع.',
    expiredTitle: 'انتهت صلاحية رابط الدفع هذا',
    expired: (merchant) => `لم يُخصم أي مبلغ. اطلب من ${merchant ?? 'المتجر'} رابطًا جديدًا.`,
    invalidTitle: 'رابط الدفع هذا غير صالح',
    invalid: 'تأكد من نسخ الرابط كاملًا، أو اطلب من المتجر رابطًا جديدًا.',
    moveTitle: 'ادفع من هاتفك',
    move: 'امسح هذا الرمز بكاميرا هاتفك لفتح هذه الصفحة عليه، أو انسخ رابطها.',
    copyLabel: 'رابط هذه الصفحة',
    qrLabel: 'رمز QR لرابط هذه الصفحة',
    whereTitle: 'الدفع بالرمز المرجعي',
    whereToPay: 'يُدفع الرمز المرجعي لاحقًا نقدًا أو من حسابك البنكي، في أي مكان يخبرك المتجر أنه يقبل رموزه. احتفظ بالرمز (اطبع هذه الصفحة أو احفظها) حتى تدفع، وادفع قبل انتهاء صلاحيته.',
  },
};

/** The page's language: `?lang=` when it names one the page speaks, else the first the browser prefers, else English. */
export function pageLanguage(url: URL, acceptLanguage: string | null): PageLanguage {
  const asked = url.searchParams.get('lang');
  if (asked === 'en' || asked === 'ar') return asked;
  const preferred = (acceptLanguage ?? '')
    .slice(0, 512)
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().toLowerCase().split(';');
      const q = params.map((param) => /^\s*q=([\d.]+)\s*$/.exec(param)?.[1]).find(Boolean);
      return { language: tag.split('-')[0] ?? '', q: q === undefined ? 1 : Number(q), index };
    })
    .filter((entry) => entry.q > 0 && (PAGE_LANGUAGES as readonly string[]).includes(entry.language))
    .sort((a, b) => b.q - a.q || a.index - b.index);
  return (preferred[0]?.language as PageLanguage | undefined) ?? 'en';
}

const escape = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

const STYLE = [
  ':root{color-scheme:light dark;--ink:#1b1c1f;--muted:#4f5158;--paper:#f6f6f8;--card:#fff;--line:#8e9099;--accent:#0b57d0}',
  '@media (prefers-color-scheme:dark){:root{--ink:#e8e8ec;--muted:#c4c6cf;--paper:#121316;--card:#1d1e22;--line:#8e9099;--accent:#a8c7fa}}',
  '*{box-sizing:border-box}',
  'body{margin:0;background:var(--paper);color:var(--ink);font:1rem/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Noto Sans Arabic",sans-serif}',
  'header,main,footer{max-inline-size:36rem;margin-inline:auto;padding-inline:1rem}',
  'header{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;justify-content:space-between;padding-block:1rem}',
  '.merchant{margin:0;font-weight:600;overflow-wrap:anywhere}',
  'a{color:var(--accent)}',
  'nav a{display:inline-block;min-block-size:44px;min-inline-size:44px;padding:.6rem .25rem}',
  'h1{margin:.25rem 0;font-size:1.5rem;line-height:1.25;overflow-wrap:anywhere}',
  '.description{margin:0 0 .5rem;color:var(--muted);overflow-wrap:anywhere}',
  '.amount{display:flex;gap:.5rem;align-items:baseline;margin:0 0 1rem;font-size:1.25rem}',
  '.amount span{color:var(--muted);font-size:1rem}',
  'svc-checkout{display:block;max-inline-size:100%}',
  // The page offers "Pay on your phone" and says where codes are paid itself (.move, .where): the element's own are not shown twice.
  'svc-checkout::part(pay-on-phone),svc-checkout::part(where){display:none}',
  '.notice{padding:1rem;border:1px solid var(--line);border-radius:8px;background:var(--card)}',
  'footer{padding-block:1rem 2rem;color:var(--muted);font-size:.875rem}',
  'section+section{margin-block-start:2rem}',
  '.where{margin-block-start:1.5rem}',
  '.where h2{margin:0;font-size:1rem}',
  '.where p{margin:.25rem 0 0;color:var(--muted)}',
  // A voucher to keep: printed, the page is the shop, the order, the element (its reference code) and where to pay it.
  '@media print{:root{color-scheme:light;--ink:#000;--muted:#222;--paper:#fff;--card:#fff}nav,footer,.move,noscript{display:none}header,main{max-inline-size:none}}',
  '.move{margin-block-start:1.5rem;padding:1rem;border:1px solid var(--line);border-radius:8px;background:var(--card)}',
  '.move summary{cursor:pointer;font-weight:600;padding-block:.6rem}',
  '.move img{display:block;inline-size:12rem;max-inline-size:100%;block-size:auto;margin-block:.5rem;background:#fff}',
  '.move label{display:block;margin-block-start:.5rem}',
  '.move input{inline-size:100%;padding:.5rem;border:1px solid var(--line);border-radius:4px;background:var(--paper);color:var(--ink);font:inherit}',
].join('');

let styleHash: Promise<string> | undefined;

/** The page's policy: its one stylesheet by hash, the kit's own files for everything else, and no framing. */
function contentSecurityPolicy(): Promise<string> {
  styleHash ??= crypto.subtle.digest('SHA-256', new TextEncoder().encode(STYLE)).then((digest) => {
    let binary = '';
    for (const byte of new Uint8Array(digest)) binary += String.fromCharCode(byte);
    return `'sha256-${btoa(binary)}'`;
  });
  return styleHash.then((hash) =>
    [
      "default-src 'none'",
      "script-src 'self'",
      `style-src 'self' ${hash}`,
      "img-src 'self' data:",
      "connect-src 'self'",
      "frame-src 'self'",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join('; '),
  );
}

/** The headers of every answer of the pay page. */
async function pageHeaders(language: PageLanguage): Promise<Record<string, string>> {
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Language': language,
    'Cache-Control': 'no-store',
    'Content-Security-Policy': await contentSecurityPolicy(),
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'X-Robots-Tag': 'noindex, nofollow',
    Vary: 'Accept-Language',
  };
}

function documentOf(language: PageLanguage, title: string, head: string, body: string): string {
  const words = PAY_PAGE_WORDS[language];
  return `<!doctype html>
<html lang="${language}" dir="${words.dir}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark"><meta name="robots" content="noindex, nofollow"><meta name="referrer" content="no-referrer">
<title>${escape(title)}</title><style>${STYLE}</style>${head}</head>
<body>${body}</body></html>`;
}

/** The other languages, each a link to this page in it. */
function languageSwitch(language: PageLanguage): string {
  const others = PAGE_LANGUAGES.filter((other) => other !== language)
    .map((other) => `<a href="?lang=${other}" hreflang="${other}" lang="${other}">${PAY_PAGE_WORDS[other].switchTo}</a>`)
    .join(' ');
  return `<nav aria-label="${PAY_PAGE_WORDS[language].languages}">${others}</nav>`;
}

export interface PayPageContent {
  language: PageLanguage;
  merchantName: string | undefined;
  product: { name: string; description?: string | undefined };
  amount: Amount;
  /** The kit's base path: the element's endpoint. */
  endpoint: string;
  checkoutToken: string;
  /** The element's tags for the page's head (`handler.element.tags()`). */
  elementTags: string;
  /** The shop's words on where reference codes are paid, in the page's language; the kit's own when absent. */
  whereToPay?: string | undefined;
  /** Moving to another device: the page's public address and its QR code's (absent where the kit knows no public address). */
  move?: { address: string; qr: string } | undefined;
}

export function formatAmount(amount: Amount, language: PageLanguage): string {
  return formatMinorUnits(amount.total, amount.currency, language === 'ar' ? ARABIC_LATIN_DIGITS : 'en');
}

/** "Pay on your phone": the QR code of the page's address, and the address to copy. */
function moveSection(move: { address: string; qr: string }, words: Words): string {
  return `<details class="move"><summary>${words.moveTitle}</summary><p>${words.move}</p>
<img src="${escape(move.qr)}" alt="${words.qrLabel}" width="192" height="192">
<label for="page-link">${words.copyLabel}</label><input id="page-link" type="url" readonly value="${escape(move.address)}" dir="ltr"></details>`;
}

/** The pay page: 200, or only its headers for `HEAD`. */
export async function payPage(content: PayPageContent, head: boolean): Promise<Response> {
  const { language, merchantName, product } = content;
  const words = PAY_PAGE_WORDS[language];
  const title = merchantName ? `${words.payTo(merchantName)} · ${product.name}` : `${words.pay} · ${product.name}`;
  const body = `<header><p class="merchant">${merchantName ? escape(merchantName) : words.pay}</p>${languageSwitch(language)}</header>
<main><h1>${escape(product.name)}</h1>${product.description ? `<p class="description">${escape(product.description)}</p>` : ''}
<p class="amount"><span>${words.amount}</span> <strong>${escape(formatAmount(content.amount, language))}</strong></p>
<svc-checkout endpoint="${escape(content.endpoint)}" checkout-token="${escape(content.checkoutToken)}" locale="${language === 'ar' ? 'ar' : 'en'}"></svc-checkout>
<noscript><p class="notice">${words.needsScript}</p></noscript>
<section class="where"><h2>${words.whereTitle}</h2><p>${escape(content.whereToPay ?? words.whereToPay)}</p></section>
${content.move ? moveSection(content.move, words) : ''}</main>
<footer><p>${words.bearer}</p></footer>`;
  const html = documentOf(language, title, content.elementTags, body);
  return new Response(head ? null : html, { status: 200, headers: await pageHeaders(language) });
}

/** A link refused: 410 when it has expired, 404 when the kit never made it; said in both languages, the payer's first. */
export async function refusedPage(kind: 'expired' | 'invalid', language: PageLanguage, merchantName: string | undefined, head: boolean): Promise<Response> {
  const order = [language, ...PAGE_LANGUAGES.filter((other) => other !== language)];
  const sections = order.map((each, index) => {
    const words = PAY_PAGE_WORDS[each];
    const heading = index === 0 ? 'h1' : 'h2';
    const title = kind === 'expired' ? words.expiredTitle : words.invalidTitle;
    const text = kind === 'expired' ? words.expired(merchantName === undefined ? undefined : escape(merchantName)) : words.invalid;
    return `<section lang="${each}" dir="${words.dir}"><${heading}>${title}</${heading}><p>${text}</p></section>`;
  });
  const words = PAY_PAGE_WORDS[language];
  const title = kind === 'expired' ? words.expiredTitle : words.invalidTitle;
  const html = documentOf(language, title, '', `<main>${sections.join('')}</main>`);
  return new Response(head ? null : html, { status: kind === 'expired' ? 410 : 404, headers: await pageHeaders(language) });
}
