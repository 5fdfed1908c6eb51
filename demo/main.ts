/**
 * The demo merchant page: a small shop order paid with <svc-checkout>, controls for its settings, a panel that
 * drives the embedded sandbox, and logs of the element's events, the payer's messages and the callbacks the
 * merchant kit verified. Every state of the element can be reached from here.
 */
import { fillPath, formatMinorUnits, SANDBOX_PATHS } from '../src/core/index.js';
import '../src/element/index.js';
import type { SvcCheckout } from '../src/element/index.js';

const ORDER_KEY = 'svc-checkout-demo:order';
const EVENTS = ['svc-ready', 'svc-change', 'svc-http-response', 'svc-action', 'svc-pay-result', 'svc-expired', 'svc-error'] as const;

const checkout = document.querySelector<SvcCheckout>('#checkout')!;
const settings = document.querySelector<HTMLFormElement>('#settings')!;
const status = document.querySelector<HTMLElement>('#control-status')!;

const current: { orderNo?: string; referenceCode?: string; redirectUrl?: string } = {};

// ---------------------------------------------------------------------------------------------------------
// The order

for (const cell of document.querySelectorAll<HTMLElement>('[data-minor]')) {
  cell.textContent = formatMinorUnits(Number(cell.dataset['minor']), 'EGP', 'en-GB');
}

function newReference(): string {
  return `NCR-${new Date().toISOString().slice(0, 10).replaceAll('-', '')}-${Math.random().toString(36).slice(2, 8).toUpperCase()}`;
}

function useOrder(reference: string): void {
  sessionStorage.setItem(ORDER_KEY, reference);
  checkout.reference = reference;
  document.querySelector('#reference')!.textContent = reference;
  showCurrent({});
}

useOrder(sessionStorage.getItem(ORDER_KEY) ?? newReference());

document.querySelector('#new-order')!.addEventListener('click', () => {
  useOrder(newReference());
  log('events', 'new order', { reference: checkout.reference });
});

// Another tab (or device) starts a payment for the same order: paying here then waits for that one.
document.querySelector('#elsewhere')!.addEventListener('click', async () => {
  const answer = await fetch('/api/checkout/payments', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      reference: checkout.reference,
      amount: { total: 12_500, currency: 'EGP' },
      product: { name: 'Coffee order' },
      payMethod: 'Pos',
      sn: 'N78101818218',
      country: 'EG',
    }),
  }).then((response) => response.json());
  status.textContent =
    answer.code === '00000' ? `Another tab started order ${answer.data.orderNo}; press Pay here.` : `${answer.code}: ${answer.message}`;
});

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
  checkout.currency = broken === 'no-currency' ? undefined : 'EGP';
  if (broken === 'no-currency') checkout.removeAttribute('currency');
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
  const answer = await fetch(`${SANDBOX_PATHS.notifications}?orderNo=${current.orderNo}`).then((response) => response.json());
  const list = document.getElementById('messages')!;
  list.replaceChildren();
  for (const message of answer.notifications ?? []) {
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

async function control(method: string, path: string, body?: unknown): Promise<void> {
  const response = await fetch(path, {
    method,
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    redirect: 'manual',
  });
  const text = await response.text();
  status.textContent = response.ok || response.type === 'opaqueredirect' ? `Done: ${method} ${path}` : `${response.status}: ${text}`;
  void refreshMessages();
}

function needOrder(): string | undefined {
  if (!current.orderNo) status.textContent = 'Start a payment first.';
  return current.orderNo;
}

const actions: Record<string, (form: HTMLFormElement, submitter: HTMLButtonElement | null) => Promise<void> | void> = {
  swipe: (form, submitter) =>
    control('POST', fillPath(SANDBOX_PATHS.swipe, { sn: String(new FormData(form).get('sn')) }), { outcome: submitter?.value ?? 'success' }),
  'pay-code': (form) => control('POST', fillPath(SANDBOX_PATHS.payReferenceCode, { code: String(new FormData(form).get('code')) })),
  'three-ds': (_, submitter) => {
    const orderNo = needOrder();
    if (!orderNo) return;
    return control('POST', fillPath(SANDBOX_PATHS.threeDsDecision, { orderNo, decision: submitter?.value ?? 'approve' }));
  },
  complete: (_, submitter) => {
    const orderNo = needOrder();
    if (!orderNo) return;
    return control('POST', fillPath(SANDBOX_PATHS.completeOrder, { orderNo }), { status: submitter?.value });
  },
  advance: (form) => control('POST', SANDBOX_PATHS.advanceClock, { minutes: Number(new FormData(form).get('minutes')) }),
  fault: (form) => {
    const data = new FormData(form);
    return control('POST', SANDBOX_PATHS.faults, { kind: data.get('kind'), count: Number(data.get('count')) });
  },
};

for (const form of document.querySelectorAll<HTMLFormElement>('form[data-action]')) {
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const submitter = (event as SubmitEvent).submitter as HTMLButtonElement | null;
    void actions[form.dataset['action'] ?? '']?.(form, submitter);
  });
}
