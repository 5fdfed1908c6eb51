/**
 * A part's isolated frame (src/isolated-fields): the bank account form's, or a code step's. The part renders the
 * frame's `<iframe>` where its fields would be; this controller makes it once, attaches it to the element's session
 * when the session is there, gives it the errors and the look of each render (the element's words and tokens), and
 * takes it down with the part. It loads with the parts that use it (the bank account form's chunk, the session's),
 * never with the first frame.
 */
import type { ReactiveController } from 'lit';
import { IsolatedFrame, themeOf } from '../../isolated-fields/host.js';
import { FRAME_FIELDS, type FrameErrors, type FrameFocus, type FrameKind, type FrameLook } from '../../isolated-fields/protocol.js';
import type { CheckoutPart } from '../parts/checkout-part.js';
import type { CheckoutContext } from '../state.js';
import { SvcCheckout } from '../svc-checkout.js';

export class IsolatedFrameController implements ReactiveController {
  readonly #part: CheckoutPart;
  readonly #kind: FrameKind;
  /** The frame's errors of a render, from the element's words (the date of birth's three boxes share one message). */
  readonly #errorsOf: (context: CheckoutContext) => FrameErrors['texts'];
  readonly #onSubmit: (context: CheckoutContext) => void;
  #frame: IsolatedFrame | undefined;
  #context: CheckoutContext | undefined;
  /** The look and errors the frame was last given, as text. */
  #lookShown = '';
  #errorsShown = '';

  constructor(part: CheckoutPart, kind: FrameKind, options: { errors: (context: CheckoutContext) => FrameErrors['texts']; submit: (context: CheckoutContext) => void }) {
    this.#part = part;
    this.#kind = kind;
    this.#errorsOf = options.errors;
    this.#onSubmit = options.submit;
    part.addController(this);
  }

  /**
   * The `<iframe>` to render in place of the fields; undefined only when the shop turned isolation off
   * (`isolated="false"`). The bank account create from the frame is proved by the checkout token, or, where the shop's
   * `authorize` hook decides orders, by a ticket the session asks for (src/checkout/tickets.ts); a code's by the
   * order's token.
   */
  frame(context: CheckoutContext): HTMLIFrameElement | undefined {
    const host = this.#host();
    if (!host || host.isolated === false) {
      this.#takeDown();
      return undefined;
    }
    this.#context = context;
    if (!this.#frame) {
      const frame = new IsolatedFrame({
        endpoint: host.endpoint || SvcCheckout.defaultEndpoint || '',
        kind: this.#kind,
        look: this.#look(context),
        title: this.#title(context),
        onSubmit: () => this.#context && this.#onSubmit(this.#context),
      });
      this.#frame = frame;
      this.#lookShown = JSON.stringify(this.#look(context));
      // The session comes with its chunk, perhaps after this form: the frame is loading meanwhile.
      void host.updateComplete.then(() => host.session && this.#frame === frame && frame.connect(host.session));
    }
    return this.#frame.element;
  }

  /** Puts the payer in the frame; false when there is none, or (`first-invalid`) no field of it is invalid. */
  focus(at: FrameFocus): boolean {
    const errors = this.#context?.state.errors ?? {};
    if (!this.#frame || (at === 'first-invalid' && !FRAME_FIELDS[this.#kind].some((field) => errors[field]))) return false;
    this.#frame.focus(at);
    return true;
  }

  hostUpdated(): void {
    const frame = this.#frame;
    const context = this.#context;
    if (!frame || !context) return;
    // The session may have come after the frame was made (the form is drawn before the session's chunk): attached
    // once it is there (a frame attached already is left as it is).
    const session = this.#host()?.session;
    if (session) frame.connect(session);
    // Said to the frame when it changed: most renders of the element change neither.
    const look = this.#look(context);
    const lookText = JSON.stringify(look);
    if (this.#lookShown !== lookText) {
      if (this.#lookShown) frame.restyle(look, this.#title(context));
      this.#lookShown = lookText;
    }
    const errors: FrameErrors = { texts: this.#errorsOf(context), invalid: FRAME_FIELDS[this.#kind].filter((field) => context.state.errors[field]) };
    const errorsText = JSON.stringify(errors);
    if (this.#errorsShown !== errorsText) {
      frame.showErrors(errors);
      this.#errorsShown = errorsText;
    }
  }

  hostDisconnected(): void {
    this.#takeDown();
  }

  /** Takes the frame down while the part stays (a code step that turned from one kind of code to the other). */
  release(): void {
    this.#takeDown();
  }

  #takeDown(): void {
    this.#frame?.destroy();
    this.#frame = undefined;
    this.#lookShown = '';
    this.#errorsShown = '';
  }

  /** The `<svc-checkout>` the part is rendered in. */
  #host(): SvcCheckout | undefined {
    const host = (this.#part.getRootNode() as ShadowRoot).host;
    return host instanceof SvcCheckout ? host : undefined;
  }

  #title(context: CheckoutContext): string {
    const titles = context.localize.term.frameTitle;
    return (this.#kind === 'BankAccount' ? titles?.BankAccount : titles?.code) ?? '';
  }

  /** The element's words for the frame's fields, in its language, and its resolved tokens. */
  #look(context: CheckoutContext): FrameLook {
    const t = context.localize.term;
    const slots = [...FRAME_FIELDS[this.#kind], ...(this.#kind === 'BankAccount' ? (['dateOfBirth'] as const) : [])];
    const pick = (terms: Partial<Record<string, string>> | undefined) => Object.fromEntries(slots.flatMap((slot) => (terms?.[slot] ? [[slot, terms[slot]]] : [])));
    const placeholder = t.datePlaceholder;
    return {
      lang: t.$code,
      dir: context.localize.dir,
      words: {
        label: pick(t.label),
        hint: pick(t.hint),
        placeholder: placeholder ? { dobDay: placeholder.day, dobMonth: placeholder.month, dobYear: placeholder.year } : {},
        errorPrefix: t.errorPrefix ?? '',
      },
      theme: themeOf(this.#part),
    };
  }
}
