/**
 * The demo merchant page: a small shop order paid with <svc-checkout>, controls for its settings, a panel that
 * drives the embedded sandbox, and logs of the element's events, the payer's messages and the callbacks the
 * merchant kit verified. Every state of the element can be reached from here.
 */
import { CHECKOUT_TOKEN_HEADER, formatMinorUnits } from '../src/core/index.js';
import '../src/element/index.js';
import type { SvcCheckout } from '../src/element/index.js';
import { SandboxControl } from '../src/sandbox/control-client.js';
import { DEMO_ORDERS_PATH, type DemoOrder } from './orders.js';

const EVENTS = ['svc-ready', 'svc-change', 'svc-http-response', 'svc-action', 'svc-pay-result', 'svc-expired', 'svc-error'] as const;

const checkout = document.querySelector<SvcCheckout>('#checkout')!;
const settings = document.querySelector<HTMLFormElement>('#settings')!;
const status = document.querySelector<HTMLElement>('#control-status')!;

const current: { orderNo?: string; referenceCode?: string; redirectUrl?: string } = {};
/** The sandbox's control API, passed through the dev server under /sandbox/. */
const sandbox = new SandboxControl('');

// ---------------------------------------------------------------------------------------------------------
// The order

for (const cell of document.querySelectorAll<HTMLElement>('[data-minor]')) {
  cell.textContent = formatMinorUnits(Number(cell.dataset['minor']), 'EGP', 'en-GB');
}

/**
 * The shop's server decides the order: it makes the reference, fixes the amount, and renders a checkout token
 * for it into the page (the dev server does, demo/vite-plugin.ts). A new order comes from the same place.
 */
let order: DemoOrder = { reference: document.querySelector('#reference')!.textContent ?? '', checkoutToken: checkout.checkoutToken ?? '' };

document.querySelector('#new-order')!.addEventListener('click', async () => {
  const response = await fetch(DEMO_ORDERS_PATH, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
  order = (await response.json()) as DemoOrder;
  document.querySelector('#reference')!.textContent = order.reference;
  showCurrent({});
  applySettings();
  log('events', 'new order', { reference: order.reference });
});

// Another tab (or device) starts a payment for the same order: paying here then waits for that one.
document.querySelector('#elsewhere')!.addEventListener('click', async () => {
  const answer = await fetch('/api/checkout/payments', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', [CHECKOUT_TOKEN_HEADER]: order.checkoutToken },
    body: JSON.stringify({ payMethod: 'Pos', sn: 'N78101818218' }),
  }).then((response) => response.json());
  status.textContent =
    answer.code === '00000' ? `Another tab started order ${answer.data.orderNo}; press Pay here.` : `${answer.code}: ${answer.message}`;
});

/** A token whose amount was changed in the page: it still reads, but the kit finds the forgery. */
function tampered(token: string): string {
  const [kind, payload, tag] = token.split('.') as [string, string, string];
  const claims = JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/'))) as Record<string, unknown>;
  claims['amt'] = 1;
  const forged = btoa(JSON.stringify(claims)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  return `${kind}.${forged}.${tag}`;
}

// ---------------------------------------------------------------------------------------------------------
// Settings

function applySettings(): void {
  const data = new FormData(settings);
  const methods = data.getAll('method').map(String);
  checkout.methods = methods.length > 0 ? methods.join(' ') : 'Pos';
  checkout.locale = String(data.get('locale'));
  const theme = String(data.get('theme'));
  if (theme) checkout.setAttribute('theme', theme);
  else checkout.removeAttribute('theme');
  checkout.redirectMode = String(data.get('redirect-mode'));
  // Ways to see the element's configuration and transport errors.
  const broken = String(data.get('fault-setup'));
  checkout.checkoutToken = broken === 'tampered-token' ? tampered(order.checkoutToken) : order.checkoutToken;
  checkout.endpoint = broken === 'dead-endpoint' ? '/api/nowhere' : '/api/checkout';
  document.documentElement.dataset['theme'] = theme || (systemDark.matches ? 'dark' : 'light');
}

const systemDark = matchMedia('(prefers-color-scheme: dark)');
systemDark.addEventListener('change', applySettings);
settings.addEventListener('change', applySettings);
applySettings();

// ---------------------------------------------------------------------------------------------------------
// Logs

function log(listId: 'events' | 'callbacks' | 'messages', title: string, detail: unknown, tone = ''): void {
  const list = document.getElementById(listId)!;
  const item = document.createElement('li');
  if (tone) item.dataset['tone'] = tone;
  const time = document.createElement('time');
  time.textContent = new Date().toLocaleTimeString('en-GB');
  const name = document.createElement('strong');
  name.textContent = title;
  const body = document.createElement('pre');
  body.textContent = typeof detail === 'string' ? detail : JSON.stringify(detail, null, 2);
  item.append(time, ' ', name, body);
  list.prepend(item);
  while (list.children.length > 50) list.lastElementChild?.remove();
}

function showCurrent(next: typeof current): void {
  Object.assign(current, { orderNo: undefined, referenceCode: undefined, redirectUrl: undefined }, next);
  const parts = [current.orderNo ?? 'none yet'];
  if (current.referenceCode) parts.push(`code ${current.referenceCode}`);
  document.querySelector('#current-order')!.textContent = parts.join(' · ');
  const codeInput = document.querySelector<HTMLInputElement>('[data-action="pay-code"] input[name=code]')!;
  codeInput.value = current.referenceCode ?? '';
}

for (const name of EVENTS) {
  checkout.addEventListener(name, (event) => {
    const detail = (event as CustomEvent).detail;
    log('events', name, detail, name === 'svc-error' ? 'bad' : name === 'svc-pay-result' ? 'good' : '');
    if (name === 'svc-http-response' && detail?.data?.orderNo) {
      showCurrent({ orderNo: detail.data.orderNo, referenceCode: detail.data.referenceCode, redirectUrl: detail.data.nextAction?.redirectUrl });
      void refreshMessages();
    }
    if (name === 'svc-action') {
      showCurrent({ orderNo: detail.orderNo, referenceCode: detail.referenceCode, redirectUrl: detail.redirectUrl });
      void refreshMessages();
    }
    if (name === 'svc-pay-result' && !current.orderNo) showCurrent({ orderNo: detail.orderNo, referenceCode: detail.referenceCode || undefined });
  });
}

async function refreshMessages(): Promise<void> {
  if (!current.orderNo) return;
  const notifications = await sandbox.notifications({ orderNo: current.orderNo });
  const list = document.getElementById('messages')!;
  list.replaceChildren();
  for (const message of notifications) {
    log('messages', `${message.channel} to ${message.to} (${message.language})`, [message.subject, message.text].filter(Boolean).join('\n\n'));
  }
}

const feed = new EventSource('/demo/callbacks');
feed.addEventListener('message', (event) => {
  const entry = JSON.parse(event.data);
  if (entry.verified) {
    log('callbacks', `✓ signature verified · ${entry.body.status} · ${entry.body.orderNo}`, entry.body, 'good');
  } else {
    log('callbacks', `✕ rejected: ${entry.reason}`, entry, 'bad');
  }
});

// ---------------------------------------------------------------------------------------------------------
// The sandbox's control API

/** Runs a control call and says how it went. */
async function control(what: string, run: () => Promise<unknown>): Promise<void> {
  try {
    await run();
    status.textContent = `Done: ${what}`;
  } catch (error) {
    status.textContent = error instanceof Error ? error.message : String(error);
  }
  void refreshMessages();
}

function needOrder(): string | undefined {
  if (!current.orderNo) status.textContent = 'Start a payment first.';
  return current.orderNo;
}

const actions: Record<string, (form: HTMLFormElement, submitter: HTMLButtonElement | null) => Promise<void> | void> = {
  swipe: (form, submitter) => {
    const sn = String(new FormData(form).get('sn'));
    const outcome = submitter?.value === 'fail' ? 'fail' : 'success';
    return control(`swipe at ${sn} (${outcome})`, () => sandbox.swipe(sn, outcome));
  },
  'pay-code': (form) => {
    const code = String(new FormData(form).get('code'));
    return control(`pay ${code}`, () => sandbox.payReferenceCode(code));
  },
  'three-ds': (_, submitter) => {
    const orderNo = needOrder();
    if (!orderNo) return;
    const decision = submitter?.value === 'decline' ? 'decline' : 'approve';
    return control(`3-D Secure ${decision}`, () => sandbox.threeDs(orderNo, decision));
  },
  complete: (_, submitter) => {
    const orderNo = needOrder();
    if (!orderNo) return;
    const outcome = (submitter?.value ?? 'SUCCESS') as 'SUCCESS' | 'FAIL' | 'CLOSE';
    return control(`settle ${orderNo} as ${outcome}`, () => sandbox.complete(orderNo, { status: outcome }));
  },
  advance: (form) => {
    const minutes = Number(new FormData(form).get('minutes'));
    return control(`clock +${minutes} min`, () => sandbox.advanceClock(minutes));
  },
  fault: (form) => {
    const data = new FormData(form);
    const kind = String(data.get('kind')) as Parameters<SandboxControl['addFault']>[0]['kind'];
    return control(`fault ${kind}`, () => sandbox.addFault({ kind, count: Number(data.get('count')) }));
  },
};

for (const form of document.querySelectorAll<HTMLFormElement>('form[data-action]')) {
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const submitter = (event as SubmitEvent).submitter as HTMLButtonElement | null;
    void actions[form.dataset['action'] ?? '']?.(form, submitter);
  });
}
