/**
 * The demo merchant page: a small shop order paid with <svc-checkout>, controls for its settings, a panel that
 * drives the embedded sandbox (faults included, listed as they wait), and logs of the element's events, the
 * payer's messages and the callbacks the merchant kit verified. Every state of the element can be reached from
 * here.
 */
import { CHECKOUT_TOKEN_HEADER, formatMinorUnits, parseCheckoutToken } from '../src/core/index.js';
import '../src/element/index.js';
import type { SvcCheckout } from '../src/element/index.js';
import { SandboxControl } from '../src/sandbox/control/client.js';
import { SANDBOX_PATHS } from '../src/sandbox/paths.js';
import type { FaultKind } from '../src/sandbox/faults/service-faults.js';
import { describeCallback, describeEvent, matchesFilter, type LogLine } from './log-lines.js';
import { DEMO_DEFAULT_EXPIRE_AT, DEMO_FAULTS_PATH, DEMO_LINKS_PATH, DEMO_ORDERS_PATH, type DemoLink, type DemoOrder, type HeldFault } from './orders.js';

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
let order: DemoOrder = {
  reference: document.querySelector('#reference')!.textContent ?? '',
  checkoutToken: checkout.checkoutToken ?? '',
  expireAt: expireAtOf(checkout.checkoutToken ?? ''),
};
showOrder();

/** What the token says, as the element reads it: the page never decides the expiry itself. */
function expireAtOf(token: string): number {
  const parsed = parseCheckoutToken(token);
  return (parsed.ok ? parsed.token.claims.expireAt : undefined) ?? DEMO_DEFAULT_EXPIRE_AT;
}

function showOrder(): void {
  document.querySelector('#reference')!.textContent = order.reference;
  document.querySelector('#order-expiry')!.textContent = `waits ${order.expireAt} min for payment`;
  settings.querySelector<HTMLInputElement>('[name=expire-at]')!.value = String(order.expireAt);
}

// "Start a new order" (or Enter in the expiry): the shop's server makes the order and signs its token.
settings.addEventListener('submit', async (event) => {
  event.preventDefault();
  const expireAt = Number(new FormData(settings).get('expire-at'));
  const response = await fetch(DEMO_ORDERS_PATH, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ expireAt }) });
  const answer = (await response.json()) as DemoOrder | { error: string };
  if ('error' in answer) {
    status.textContent = answer.error;
    return;
  }
  order = { ...answer, expireAt: expireAtOf(answer.checkoutToken) };
  showOrder();
  showCurrent({});
  applySettings();
  events.add({ title: 'new order', summary: `${order.reference} · waits ${order.expireAt} min`, tone: 'plain', detail: order });
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
  void refreshFaults();
});

// A payment link for a new cart (docs/pay-links.md): its pay page and its QR code, both served by the kit.
document.querySelector('#make-link')!.addEventListener('click', async () => {
  const answer = await fetch(DEMO_LINKS_PATH, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
  if (!answer.ok) {
    status.textContent = `No link: ${answer.status}`;
    return;
  }
  const link = (await answer.json()) as DemoLink;
  (document.querySelector('#link-url') as HTMLAnchorElement).href = link.url;
  (document.querySelector('#link-qr') as HTMLImageElement).src = link.qr;
  (document.querySelector('#link') as HTMLElement).hidden = false;
  events.add({ title: 'payment link', summary: `${link.reference} · ${link.url}`, tone: 'plain', detail: link });
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

/** A log of one line per entry, newest first, coloured by outcome; the detail opens on a click. */
class LogList {
  readonly #lines = new WeakMap<Element, LogLine>();
  #filter = '';

  constructor(
    readonly list: HTMLOListElement,
    readonly counter?: HTMLElement,
  ) {}

  add(line: LogLine): void {
    const item = document.createElement('li');
    item.dataset['tone'] = line.tone;
    const entry = document.createElement('details');
    const head = document.createElement('summary');
    const time = document.createElement('time');
    time.textContent = new Date().toLocaleTimeString('en-GB');
    const name = document.createElement('strong');
    name.textContent = line.title;
    const summary = document.createElement('span');
    summary.className = 'summary';
    summary.textContent = line.summary;
    head.append(time, ' ', name, ' ', summary);
    const body = document.createElement('pre');
    body.textContent = typeof line.detail === 'string' ? line.detail : JSON.stringify(line.detail, null, 2);
    entry.append(head, body);
    item.append(entry);
    item.hidden = !matchesFilter(line, this.#filter);
    this.#lines.set(item, line);
    this.list.prepend(item);
    while (this.list.children.length > 200) this.list.lastElementChild?.remove();
    this.#count();
  }

  filter(text: string): void {
    this.#filter = text;
    for (const item of this.list.children) {
      const line = this.#lines.get(item);
      if (line) (item as HTMLElement).hidden = !matchesFilter(line, text);
    }
    this.#count();
  }

  clear(): void {
    this.list.replaceChildren();
    this.#count();
  }

  #count(): void {
    if (!this.counter) return;
    const all = this.list.children.length;
    const shown = [...this.list.children].filter((item) => !(item as HTMLElement).hidden).length;
    this.counter.textContent = this.#filter.trim() ? `${shown} of ${all} shown` : '';
  }
}

const events = new LogList(document.querySelector('#events')!, document.querySelector('#events-count')!);
const callbacks = new LogList(document.querySelector('#callbacks')!);
const messages = new LogList(document.querySelector('#messages')!);
const logs: Record<string, LogList> = { events, callbacks };

document.querySelector<HTMLInputElement>('#events-filter')!.addEventListener('input', (event) => {
  events.filter((event.target as HTMLInputElement).value);
});
for (const button of document.querySelectorAll<HTMLButtonElement>('[data-clear]')) {
  button.addEventListener('click', () => logs[button.dataset['clear'] ?? '']?.clear());
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
    events.add(describeEvent(name, detail));
    if (name !== 'svc-change') void refreshFaults();
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
  messages.clear();
  for (const message of notifications) {
    messages.add({
      title: `${message.channel} to ${message.to}`,
      summary: message.language,
      tone: 'plain',
      detail: [message.subject, message.text].filter(Boolean).join('\n\n'),
    });
  }
}

const feed = new EventSource('/demo/callbacks');
feed.addEventListener('message', (event) => {
  callbacks.add(describeCallback(JSON.parse(event.data)));
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
  void refreshFaults();
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
    const kind = String(data.get('kind')) as FaultKind;
    const delayMs = HELD_KINDS.has(kind) ? Math.round(Number(data.get('delay')) * 1000) : undefined;
    const fault = { kind, ...(delayMs !== undefined ? { delayMs } : {}) };
    if (data.get('next-create')) return control(`fault ${kind} on the next create`, () => demoFaults('POST', fault));
    return control(`fault ${kind}`, () => sandbox.addFault({ ...fault, count: Number(data.get('count')) }));
  },
};

for (const form of document.querySelectorAll<HTMLFormElement>('form[data-action]')) {
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const submitter = (event as SubmitEvent).submitter as HTMLButtonElement | null;
    void actions[form.dataset['action'] ?? '']?.(form, submitter);
  });
}

// ---------------------------------------------------------------------------------------------------------
// Faults waiting: the sandbox's queue (next calls, whichever they are) and the demo server's (next create only)

/** The kinds that hold a call before they answer or cut it. */
const HELD_KINDS: ReadonlySet<FaultKind> = new Set(['timeout', 'slow', 'lost']);
const faultForm = document.querySelector<HTMLFormElement>('form[data-action="fault"]')!;
const faultList = document.querySelector<HTMLUListElement>('#faults')!;

async function demoFaults(method: 'GET' | 'POST' | 'DELETE', body?: HeldFault): Promise<HeldFault[]> {
  const response = await fetch(DEMO_FAULTS_PATH, {
    method,
    ...(body ? { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) } : {}),
  });
  const answer = (await response.json()) as { nextCreate?: HeldFault[]; error?: string };
  if (!response.ok) throw new Error(answer.error ?? `HTTP ${response.status}`);
  return answer.nextCreate ?? [];
}

function describeFault(fault: { kind: FaultKind; delayMs?: number }): string {
  const held = HELD_KINDS.has(fault.kind) && fault.delayMs !== undefined ? ` after ${fault.delayMs / 1000} s` : '';
  return `${faultForm.querySelector(`option[value="${fault.kind}"]`)?.textContent ?? fault.kind}${held}`;
}

let faultPoll: ReturnType<typeof setTimeout> | undefined;

/** Lists the faults still waiting; while there are some, looks again every two seconds (calls use them up). */
async function refreshFaults(): Promise<void> {
  clearTimeout(faultPoll);
  const [queued, nextCreate] = await Promise.all([
    sandbox.request<{ faults: { kind: FaultKind; remaining: number; delayMs: number }[] }>('GET', SANDBOX_PATHS.faults).then((answer) => answer.body.faults ?? []),
    demoFaults('GET'),
  ]).catch(() => [[], []] as const);
  const items = [
    ...nextCreate.map((fault) => ({ scope: 'next-create', text: `${describeFault(fault)} · the next create only` })),
    ...queued.map((fault) => ({ scope: 'calls', text: `${describeFault(fault)} · the next ${fault.remaining === 1 ? 'call' : `${fault.remaining} calls`}` })),
  ];
  faultList.replaceChildren(
    ...items.map(({ scope, text }) => {
      const item = document.createElement('li');
      item.dataset['scope'] = scope;
      item.textContent = text;
      return item;
    }),
  );
  if (items.length === 0) faultList.append(Object.assign(document.createElement('li'), { className: 'empty', textContent: 'None: every call goes through.' }));
  if (items.length > 0) faultPoll = setTimeout(() => void refreshFaults(), 2_000);
}

document.querySelector('#clear-faults')!.addEventListener('click', () =>
  control('faults cleared', () => Promise.all([sandbox.clearFaults(), demoFaults('DELETE')])),
);

/** The count means nothing for the next create; the delay only for the kinds that hold a call. */
function showFaultFields(): void {
  const data = new FormData(faultForm);
  faultForm.querySelector<HTMLInputElement>('[name=count]')!.disabled = Boolean(data.get('next-create'));
  const held = HELD_KINDS.has(String(data.get('kind')) as FaultKind);
  faultForm.querySelector<HTMLElement>('[data-delay]')!.hidden = !held;
}
faultForm.addEventListener('change', showFaultFields);
showFaultFields();
void refreshFaults();
