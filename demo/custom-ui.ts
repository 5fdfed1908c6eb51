/**
 * A shop's own checkout UI on the headless session (`svc-checkout/checkout`), with plain DOM: proof that the
 * public API is enough for a merchant's own design. It renders the session's state on every change and sends
 * the payer's commands back; the session does the rest (create, codes, 3-D Secure, status).
 */
import { CheckoutSession, METHOD_FIELDS, orderOf, type CheckoutState, type FieldName, type Message } from '../src/checkout/index.js';
import type { PayMethod } from '../src/core/index.js';
import { DEMO_ORDERS_PATH, type DemoOrder } from './orders.js';

const root = document.querySelector<HTMLElement>('#checkout')!;
const LABELS: Partial<Record<FieldName, string>> = {
  sn: 'Terminal serial number',
  bankAccountNumber: 'Account number',
  bankCode: 'Bank code',
  dobDay: 'Day of birth',
  dobMonth: 'Month of birth',
  dobYear: 'Year of birth',
  notifyUserName: 'Your name',
  notifyUserEmail: 'Email',
  notifyUserMobile: 'Mobile',
};
const METHODS: Record<PayMethod, string> = { Pos: 'Card at a terminal', BankAccount: 'Bank account', ReferenceCode: 'Pay later with a code' };
const SAYS: Partial<Record<Message['kind'], string>> = { network: 'Check your connection.', service: 'Payments are down for a moment.', resent: 'A new code is on its way.' };

/** Builds an element with attributes and children: all text goes in as text, never as HTML. */
function el(tag: string, attributes: Record<string, string> = {}, ...children: (Node | string)[]): HTMLElement {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

function form(session: CheckoutSession, state: CheckoutState): HTMLElement {
  const picker = el('select', { name: 'method', 'aria-label': 'Payment method' });
  for (const method of state.methods) picker.append(el('option', method === state.method ? { value: method, selected: '' } : { value: method }, METHODS[method]));
  picker.addEventListener('change', () => session.selectMethod((picker as HTMLSelectElement).value as PayMethod));
  const fields = METHOD_FIELDS[state.method]
    .filter((field) => LABELS[field.name])
    .map((field) => {
      const input = el('input', { name: field.name, autocomplete: field.autocomplete }) as HTMLInputElement;
      input.value = state.values[state.method][field.name] ?? '';
      input.addEventListener('input', () => session.input(field.name, input.value));
      const error = state.errors[field.name];
      return el('label', {}, LABELS[field.name]!, input, error ? el('span', { class: 'error' }, ` (${error.rule})`) : '');
    });
  const pay = el('button', { type: 'submit' }, state.busy ? 'Paying…' : 'Pay');
  const shape = el('form', {}, el('fieldset', {}, picker, ...fields), pay);
  shape.addEventListener('submit', (event) => {
    event.preventDefault();
    void session.submit();
  });
  return shape;
}

function step(session: CheckoutSession, state: CheckoutState): HTMLElement {
  const order = orderOf(state.phase)!;
  switch (order.actionType) {
    case 'SWIPE_CARD':
      return el('div', { class: 'step' }, `Swipe your card at terminal ${order.sn ?? ''}.`);
    case 'INPUT_OTP':
    case 'INPUT_PIN': {
      const input = el('input', { name: 'code', inputmode: 'numeric', 'aria-label': 'Code' }) as HTMLInputElement;
      const send = el('form', {}, input, el('button', { type: 'submit' }, 'Confirm'));
      send.addEventListener('submit', (event) => {
        event.preventDefault();
        void session.submitCode(input.value);
      });
      const error = state.errors.otp ?? state.errors.pin;
      return el('div', { class: 'step' }, order.actionType === 'INPUT_OTP' ? 'Type the code your bank sent.' : 'Type your PIN.', send, error ? el('p', { class: 'error' }, 'That code is not right.') : '');
    }
    case 'REDIRECT_3DS': {
      const go = el('button', { type: 'button' }, 'Continue to your bank');
      go.addEventListener('click', () => session.openRedirect());
      return el('div', { class: 'step' }, go);
    }
    case 'REFERENCE_CODE':
      return el('div', { class: 'step' }, 'Your code: ', el('output', { name: 'reference-code' }, order.referenceCode ?? ''));
    default:
      return el('div', { class: 'step' }, 'Waiting for the payment…');
  }
}

let shown = '';

function render(session: CheckoutSession, state: CheckoutState): void {
  const phase = state.phase;
  // Typing changes only values: the inputs already show them, so the page is not rebuilt under the payer.
  const key = JSON.stringify([phase, state.method, state.errors, state.busy, state.alert]);
  if (key === shown) return;
  shown = key;
  const alert = state.alert ? el('p', { class: 'error', role: 'alert' }, SAYS[state.alert.kind] ?? 'Something went wrong.') : '';
  const body =
    phase.kind === 'form'
      ? form(session, state)
      : phase.kind === 'action' || phase.kind === 'waiting'
        ? step(session, state)
        : phase.kind === 'result'
          ? el('p', { 'data-outcome': phase.outcome }, phase.outcome === 'SUCCESS' ? 'Thank you: paid.' : `Not paid (${phase.outcome}).`)
          : el('p', {}, phase.kind === 'config-error' ? `Setup problem: ${phase.setting}` : 'Loading…');
  root.replaceChildren(body, alert);
}

// The shop's server decides the order and hands this page its checkout token.
const order = (await (await fetch(DEMO_ORDERS_PATH, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' })).json()) as DemoOrder;
const session = new CheckoutSession({ endpoint: '/api/checkout', checkoutToken: order.checkoutToken });
const amount = session.state.amount;
document.querySelector('#summary')!.textContent = `${order.reference}: ${amount ? `${amount.currency} ${(amount.total / 100).toFixed(2)}` : ''}`;
session.subscribe((state) => render(session, state));
render(session, session.state);
(window as unknown as { checkoutSession: CheckoutSession }).checkoutSession = session;
