/**
 * A part's isolated frame (src/isolated-fields): the bank account form's, or a code step's. The part renders the
 * frame's `<iframe>` where its fields would be; this controller makes it before the part renders, from the part's
 * context alone (never the host element), attaches it to the session when the context has one, gives it the errors and the look of each render (the element's words and tokens), and
 * takes it down with the part. It loads with the parts that use it (the bank account form's chunk, the session's),
 * never with the first frame.
 */
import type { ReactiveController } from 'lit';
import { IsolatedFrame, themeOf } from '../../isolated-fields/host.js';
import { FRAME_FIELDS, type FrameErrors, type FrameFocus, type FrameKind, type FrameLook } from '../../isolated-fields/protocol.js';
import type { CheckoutPart } from '../parts/checkout-part.js';
import type { CheckoutContext } from '../state.js';

export interface IsolatedFrameOptions {
  /** The frame's errors of a render, from the element's words (the date of birth's three boxes share one message). */
  errors: (context: CheckoutContext) => FrameErrors['texts'];
  submit: (context: CheckoutContext) => void;
  /** Whether the part shows this frame now (a code step shows the frame of its kind of code); default always. */
  shown?: (context: CheckoutContext) => boolean;
}

export class IsolatedFrameController implements ReactiveController {
  readonly #part: CheckoutPart;
  readonly #kind: FrameKind;
  readonly #options: IsolatedFrameOptions;
  #frame: IsolatedFrame | undefined;
  #context: CheckoutContext | undefined;
  /** The look and errors the frame was last given, as text. */
  #lookShown = '';
  #errorsShown = '';

  constructor(part: CheckoutPart, kind: FrameKind, options: IsolatedFrameOptions) {
    this.#part = part;
    this.#kind = kind;
    this.#options = options;
    part.addController(this);
  }

  /**
   * The `<iframe>` the part renders in place of the fields; undefined when the session's configuration keeps them in
   * the page (`isolated: false`, `state.isolatedAt`), or the part does not show this frame now. Made before the
   * part renders (`hostUpdate`): rendering only places it.
   */
  get element(): HTMLIFrameElement | undefined {
    return this.#frame?.element;
  }

  /**
   * Before each update of the part: the frame is made, from the context alone (where it is served, the words), when
   * the part shows it, and taken down when it no longer does. The bank account create from the frame is proved by
   * the checkout token, or, where the shop's `authorize` hook decides orders, by a ticket the session asks for
   * (src/checkout/tickets.ts); a code's by the order's token.
   */
  hostUpdate(): void {
    const context = this.#part.context;
    const at = context?.state.isolatedAt;
    if (!context || at === undefined || !(this.#options.shown?.(context) ?? true)) return this.#takeDown();
    this.#context = context;
    if (this.#frame) return;
    this.#frame = new IsolatedFrame({
      endpoint: at,
      kind: this.#kind,
      look: this.#look(context),
      title: this.#title(context),
      onSubmit: () => this.#context && this.#options.submit(this.#context),
    });
    this.#lookShown = JSON.stringify(this.#look(context));
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
    // The session may come after the frame was made (the form is drawn before the session's chunk): attached once
    // the context has it (a frame attached already is left as it is).
    if (context.session) frame.connect(context.session);
    // Said to the frame when it changed: most renders of the element change neither.
    const look = this.#look(context);
    const lookText = JSON.stringify(look);
    if (this.#lookShown !== lookText) {
      if (this.#lookShown) frame.restyle(look, this.#title(context));
      this.#lookShown = lookText;
    }
    const errors: FrameErrors = { texts: this.#options.errors(context), invalid: FRAME_FIELDS[this.#kind].filter((field) => context.state.errors[field]) };
    const errorsText = JSON.stringify(errors);
    if (this.#errorsShown !== errorsText) {
      frame.showErrors(errors);
      this.#errorsShown = errorsText;
    }
  }

  hostDisconnected(): void {
    this.#takeDown();
  }

  #takeDown(): void {
    this.#context = undefined;
    this.#frame?.destroy();
    this.#frame = undefined;
    this.#lookShown = '';
    this.#errorsShown = '';
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
