/**
 * The isolated frame's own script: the one script of its page (svc-checkout-frame.html, built inline), in a document
 * of an opaque origin that the shop's page cannot reach. It draws the fields its configuration names, checks them with
 * src/core's rows for them, tells the page only the rules they break, and sends the one call that needs their values
 * to the kit itself: the page gives the rest of the body and the proof, the frame adds its values and posts.
 */
import { DEFAULT_TIMEOUT_MS, requestHeaders } from '../checkout/endpoint-client.js';
import { BANK_ACCOUNT_FIELDS } from '../checkout/bank-account-fields.js';
import { CODE_FIELDS } from '../checkout/code-fields.js';
import type { FieldName, FieldSpec } from '../checkout/fields.js';
import type { IsolatedProof, IsolatedReport } from '../checkout/isolated.js';
import { toAsciiDigits } from '../core/digits.js';
import { ARABIC_LATIN_DIGITS } from '../core/money.js';
import { EXPIRES_IN_HEADER, MERCHANT_PATHS, ORDER_TOKEN_HEADER } from '../core/paths.js';
import { shownPaymentOf, type ShownPayment } from '../core/token-wire.js';
import { BANK_ACCOUNT_DETAILS, PAYER_CODE_RULES, type RuleTable } from '../core/rules.js';
import { validate } from '../core/validate.js';
import { RESULT_ROLES } from '../core/result-roles.js';
import { withoutTyped } from './scrub.js';
import { decodeConfig, FRAME_CALLS, FRAME_FIELDS, HANDSHAKE, THEME_TOKENS, type FrameConfig, type FrameErrors, type FrameLook, type FrameSlot, type FromFrame, type ToFrame } from './protocol.js';

/** What each kind of frame checks its fields by: src/core's rows for them. */
const TABLES = {
  BankAccount: BANK_ACCOUNT_DETAILS,
  ...PAYER_CODE_RULES,
} satisfies Record<FrameConfig['kind'], RuleTable>;


/**
 * The frame's own words for what the payer pays: never the page's, which a script that answered the frame's greeting
 * would write. Arabic for a page in Arabic, English otherwise.
 */
const PAYING = { en: ['You pay', 'to'], ar: ['تدفع', 'إلى'] } as const;

const config = decodeConfig(location.hash);
// Only in a document of an opaque origin, which no script of the page can reach: framed without its sandbox (the
// <iframe>'s, or its policy's where a static host serves it without one), it draws no field.
if (config && self.origin === 'null') start(config);

function start({ nonce, kind, look: given }: FrameConfig): void {
  const specs: readonly FieldSpec[] = kind === 'BankAccount' ? BANK_ACCOUNT_FIELDS : [CODE_FIELDS[kind]];
  const names = FRAME_FIELDS[kind];
  const inputs = new Map<FieldName, HTMLInputElement>();
  /** Elements whose text is a word of the look, by what they say: `label.dobDay`, `hint.otp`, … */
  const worded: [HTMLElement, string][] = [];
  const errorOf = new Map<FrameSlot, HTMLElement>();
  let port: MessagePort | undefined;
  let reported = '';
  /** The create's proof, and the payment it shows: fixed by the first `bind`, renewed only by one that shows the same. */
  let bound: { proof: IsolatedProof; shown: ShownPayment } | undefined;
  /**
   * The fields whose next edit is told to the page even though no rule it breaks changed (so that it clears the kit's
   * error there): each once after each answer of the kit's, never once per keystroke.
   */
  const editable = new Set<FieldName>();
  let shown: FrameErrors = { texts: {}, invalid: [] };
  /** The field a focus request is for, until it could be given (WebKit lets a frame focus only once it is used). */
  let pending: HTMLInputElement | undefined;

  const post = (message: FromFrame) => port?.postMessage(message);
  const element = <K extends keyof HTMLElementTagNameMap>(tag: K, props: Record<string, unknown> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] => {
    const made = Object.assign(document.createElement(tag), props);
    made.append(...children);
    return made;
  };
  const words = (node: HTMLElement, key: string) => (worded.push([node, key]), node);
  /** The id of a slot's error: the date of birth's as the element's own form names it. */
  const errorId = (slot: FrameSlot) => `${slot === 'dateOfBirth' ? 'dob' : slot}-error`;
  const errorSlot = (slot: FrameSlot) => {
    const slotElement = element('p', { className: 'error', id: errorId(slot), hidden: true });
    errorOf.set(slot, slotElement);
    return slotElement;
  };

  const input = (spec: FieldSpec, describedBy: string) => {
    const field = element('input', {
      id: spec.name,
      name: spec.name,
      type: spec.type ?? 'text',
      autocomplete: spec.autocomplete,
      required: true,
      spellcheck: false,
      dir: spec.digits ? 'ltr' : 'auto',
    });
    if (spec.inputmode) field.inputMode = spec.inputmode;
    if (spec.maxlength) field.maxLength = spec.maxlength;
    field.dataset['describedBy'] = describedBy;
    inputs.set(spec.name, field);
    return field;
  };

  const form = element('form', { noValidate: true });
  // What the payer is about to pay, from the create's proof: in the frame's own words and colours, where the page has no say.
  const paying = element('p', { className: 'paying', hidden: true });
  if (kind === 'BankAccount') form.append(paying);
  const dateParts = specs.filter((spec) => spec.control === 'date-part');
  for (const spec of specs.filter((spec) => !spec.control)) {
    const hint = spec.hint ? words(element('p', { className: 'hint', id: `${spec.name}-hint` }), `hint.${spec.name}`) : undefined;
    form.append(
      element(
        'div',
        { className: 'field' },
        words(element('label', { htmlFor: spec.name }), `label.${spec.name}`),
        ...(hint ? [hint] : []),
        input(spec, hint ? hint.id : ''),
        errorSlot(spec.name),
      ),
    );
  }
  if (dateParts.length > 0) {
    const fieldset = element(
      'fieldset',
      {},
      words(element('legend'), 'label.dateOfBirth'),
      words(element('p', { className: 'hint', id: 'dob-hint' }), 'hint.dateOfBirth'),
      element(
        'div',
        { className: 'date' },
        ...dateParts.map((spec) => element('div', { className: 'field' }, words(element('label', { htmlFor: spec.name }), `label.${spec.name}`), input(spec, 'dob-hint'))),
      ),
      errorSlot('dateOfBirth'),
    );
    fieldset.setAttribute('aria-describedby', 'dob-hint');
    form.append(fieldset);
  }
  document.body.append(form);
  // A bank account frame takes no key until it shows what the payer pays.
  if (kind === 'BankAccount') for (const field of inputs.values()) field.readOnly = true;

  const typed = () => Object.fromEntries([...inputs].map(([name, field]) => [name, toAsciiDigits(field.value).trim()]));
  const check = () => validate(TABLES[kind], typed());

  /** The first rule each field breaks; said again only when it changed, or when the payer changed a field that shows an error. */
  const report = (edited?: FieldName) => {
    const checked = check();
    const broken: Partial<Record<FieldName, string>> = {};
    for (const violation of checked.violations) broken[violation.field as FieldName] ??= violation.rule;
    const text = JSON.stringify(broken);
    if (text === reported && !(edited && shown.invalid.includes(edited) && editable.delete(edited))) return;
    reported = text;
    const fields: IsolatedReport = { fields: names, broken };
    post({ type: 'report', report: fields, ...(edited ? { edited } : {}) });
  };

  const restyle = (next: FrameLook) => {
    document.documentElement.lang = next.lang;
    document.documentElement.dir = next.dir;
    for (const [name, value] of Object.entries(next.theme)) {
      // The tokens a page may set here, and nothing else of what it sends.
      if ((THEME_TOKENS as readonly string[]).includes(name) && typeof value === 'string') document.documentElement.style.setProperty(name, value);
    }
    for (const [node, key] of worded) {
      const [group, slot] = key.split('.') as ['label' | 'hint', FrameSlot];
      node.textContent = next.words[group][slot] ?? '';
    }
    for (const spec of dateParts) {
      const field = inputs.get(spec.name);
      if (field) field.placeholder = next.words.placeholder[spec.name] ?? '';
    }
    look = next;
    showErrors(shown);
    showPaying();
  };

  const showPaying = () => {
    if (!bound) return;
    const [pay, to] = PAYING[look.lang.startsWith('ar') ? 'ar' : 'en'];
    const { total, currency, merchantName } = bound.shown;
    let format: Intl.NumberFormat;
    try {
      format = new Intl.NumberFormat(look.lang.startsWith('ar') ? ARABIC_LATIN_DIGITS : look.lang, { style: 'currency', currency });
    } catch {
      // A language the platform does not know: the amount in English.
      format = new Intl.NumberFormat('en', { style: 'currency', currency });
    }
    // Minor units to the currency's own: exact to the cent for every amount the service takes.
    const amount = format.format(total / 10 ** (format.resolvedOptions().maximumFractionDigits ?? 2));
    paying.replaceChildren(`${pay} `, element('strong', { textContent: amount }), ...(merchantName ? [` ${to} `, element('strong', { textContent: merchantName })] : []));
    paying.hidden = false;
  };

  const bind = (proof: IsolatedProof) => {
    const shownNow = shownPaymentOf(proof.checkoutToken ?? proof.ticket);
    // Two proofs that show the same payment are one to the payer (a renewed ticket); any other is not taken.
    if (kind !== 'BankAccount' || !shownNow || (bound && JSON.stringify(bound.shown) !== JSON.stringify(shownNow))) return;
    bound = { proof, shown: shownNow };
    showPaying();
    for (const field of inputs.values()) field.readOnly = false;
  };

  const showErrors = (errors: FrameErrors) => {
    shown = errors;
    for (const [slot, slotElement] of errorOf) {
      const text = errors.texts[slot];
      slotElement.hidden = !text;
      slotElement.replaceChildren(...(text ? [element('span', { className: 'visually-hidden', textContent: `${look.words.errorPrefix} ` }), text] : []));
    }
    for (const [name, field] of inputs) {
      const invalid = errors.invalid.includes(name);
      const slot: FrameSlot = field.dataset['describedBy'] === 'dob-hint' ? 'dateOfBirth' : name;
      field.setAttribute('aria-invalid', String(invalid));
      const describedBy = [field.dataset['describedBy'], errors.texts[slot] ? errorId(slot) : ''].filter(Boolean).join(' ');
      if (describedBy) field.setAttribute('aria-describedby', describedBy);
      else field.removeAttribute('aria-describedby');
    }
  };

  const focus = (at: 'first' | 'first-invalid') => {
    const target = [...inputs.values()].find((field) => at === 'first' || field.getAttribute('aria-invalid') === 'true');
    if (!target) return;
    target.focus();
    pending = document.activeElement === target ? undefined : target;
  };

  const send = async ({ id, call, body, proof }: Extract<ToFrame, { type: 'send' }>) => {
    const timeout = AbortSignal.timeout(DEFAULT_TIMEOUT_MS);
    try {
      if (call !== FRAME_CALLS[kind]) {
        post({ type: 'sent', id, failure: 'refused' });
        return;
      }
      // The create goes under the proof whose payment the payer saw, or not at all: as the kit answers a cart that changed.
      if (kind === 'BankAccount' && !(bound && (bound.proof.checkoutToken ?? bound.proof.ticket) === (proof.checkoutToken ?? proof.ticket))) {
        const envelope = { code: 'CHECKOUT_CHANGED', message: 'not the payment the fields show', data: null };
        post({ type: 'sent', id, response: { status: 200, body: JSON.stringify(envelope), expiresIn: null, orderToken: null } });
        return;
      }
      const checked = check();
      // Checked as the kit would: a value changed since the page last heard is refused here, and never sent.
      if (!checked.ok) {
        const envelope = { code: RESULT_ROLES.invalid, message: 'request params not valid.', data: { errors: checked.violations } };
        post({ type: 'sent', id, response: { status: 200, body: JSON.stringify(envelope), expiresIn: null, orderToken: null } });
        return;
      }
      // Only to the kit that served this page, at the call's own path: no message can name another address.
      const response = await fetch(new URL(`.${MERCHANT_PATHS[call]}`, location.href).href, {
        method: 'POST',
        headers: requestHeaders(proof.checkoutToken, proof.orderToken, proof.ticket),
        body: JSON.stringify({ ...body, ...typed() }),
        credentials: 'omit',
        signal: timeout,
      });
      const answer = { status: response.status, expiresIn: response.headers.get(EXPIRES_IN_HEADER), orderToken: response.headers.get(ORDER_TOKEN_HEADER) };
      // The kit answered: an error it puts at a field is cleared by the payer's next edit there, told once. And a code
      // it had is not kept: a wrong one is typed again, a right one is done with. One that never reached it (offline,
      // the fetch rejected) stays, to be sent again; so does one refused here, to be corrected.
      for (const name of names) editable.add(name);
      if (kind !== 'BankAccount') for (const field of inputs.values()) field.value = '';
      post({ type: 'sent', id, response: { ...answer, body: withoutTyped(await response.text(), Object.values(typed())) } });
    } catch {
      post({ type: 'sent', id, failure: timeout.aborted ? 'timeout' : 'network' });
    } finally {
      report();
    }
  };

  const receive = (message: ToFrame) => {
    if (message.type === 'look') restyle(settled(message.look));
    else if (message.type === 'errors') showErrors(message.errors);
    else if (message.type === 'focus') focus(message.at);
    else if (message.type === 'bind') bind(message.proof);
    else if (message.type === 'send') void send(message);
  };

  let look = settled(given);
  restyle(look);
  form.addEventListener('input', (event) => report((event.target as HTMLInputElement).name as FieldName));
  form.addEventListener('focusout', (event) => post({ type: 'blur', field: (event.target as HTMLInputElement).name as FieldName }));
  form.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    post({ type: 'submit' });
  });
  form.addEventListener('submit', (event) => event.preventDefault());
  // A focus asked for before the frame could take it is given at the payer's first key or at the frame's focus.
  document.addEventListener('keydown', () => pending && document.activeElement === document.body && pending.focus(), true);
  addEventListener('focus', () => pending?.focus());
  document.addEventListener('focusin', () => (pending = undefined));
  new ResizeObserver(() => post({ type: 'height', height: Math.ceil(document.documentElement.getBoundingClientRect().height) })).observe(document.body);

  // Only the parent that made this frame, with the nonce it made it with, gets the channel; and only once.
  addEventListener('message', function handshake(event) {
    if (event.source !== parent || event.data?.type !== HANDSHAKE || event.data.nonce !== nonce || !event.ports[0]) return;
    removeEventListener('message', handshake);
    port = event.ports[0];
    port.onmessage = (message) => receive(message.data as ToFrame);
    reported = '';
    report();
    post({ type: 'height', height: Math.ceil(document.documentElement.getBoundingClientRect().height) });
  });
  parent.postMessage({ type: HANDSHAKE, nonce }, '*');
}

/** The look the page sent, with a language and direction it can use. */
function settled(look: FrameLook): FrameLook {
  return { ...look, lang: String(look.lang), dir: look.dir === 'rtl' ? 'rtl' : 'ltr' };
}
