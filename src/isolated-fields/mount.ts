/**
 * The isolated fields as a piece a shop's own UI mounts beside its own form, on a headless `CheckoutSession`
 * (`svc-checkout/checkout`): the same frame `<svc-checkout>` uses, the same guarantees (docs/isolated-fields.md).
 * The UI gives the words; the frame follows the session (its errors, shown in the frame) until it is taken down.
 */
import { BANK_ACCOUNT_FIELDS } from '../checkout/bank-account-fields.js';
import type { FieldName } from '../checkout/fields.js';
import type { CheckoutSession } from '../checkout/session.js';
import type { FieldError } from '../checkout/state.js';
import { IsolatedFrame, themeOf } from './host.js';
import { FRAME_FIELDS, type FrameErrors, type FrameFocus, type FrameKind, type FrameSlot, type FrameWords } from './protocol.js';

/** The date of birth's boxes, which share one message. */
const DATE_PARTS: readonly FieldName[] = BANK_ACCOUNT_FIELDS.flatMap((spec) => ('control' in spec && spec.control === 'date-part' ? [spec.name] : []));

export interface MountOptions {
  /** The session whose fields these are: its form takes their state, its calls that need them go through the frame. */
  session: Pick<CheckoutSession, 'isolate' | 'blur' | 'subscribe'>;
  /** The merchant kit's address, as the session's `endpoint`: the frame is its page `svc-checkout-frame.html`. */
  endpoint: string;
  /** `BankAccount` (the account number, bank code and date of birth), `INPUT_OTP` or `INPUT_PIN`. */
  kind: FrameKind;
  /** The labels, hints and date placeholders the frame shows, in `lang`; `errorPrefix` is said before each error. */
  words: FrameWords;
  /** What a screen reader says on entering the frame, once. */
  title: string;
  /** The page's language and direction. Default: the container's `lang` and `dir` as the page resolves them. */
  lang?: string | undefined;
  dir?: 'ltr' | 'rtl' | undefined;
  /** The look: the values of `THEME_TOKENS` (protocol.ts). Default: those the container resolves. */
  theme?: Readonly<Record<string, string>> | undefined;
  /**
   * An error's words, from the rule the field breaks (`required`, `format`, `minLength`, `date`, …; a wrong code's
   * `text` and tries `left` come from the service). Default: the service's text, else the rule's name.
   */
  errorText?: ((field: FieldName, error: FieldError) => string) | undefined;
  /** The payer pressed Enter in a field: submit the form (`session.submit()`) or the code (`session.submitCode('')`). */
  onSubmit?: (() => void) | undefined;
}

export interface MountedFields {
  /** The `<iframe>`, in the container. */
  readonly frame: HTMLIFrameElement;
  /** Puts the payer in the frame: at its first field, or its first invalid one (after a submit with errors). */
  focus(at?: FrameFocus): void;
  /** New words, language or theme. */
  restyle(look: Pick<MountOptions, 'words' | 'title' | 'lang' | 'dir' | 'theme'>): void;
  /** Takes the frame down: the session takes no more from it, and a call in flight through it is said lost. */
  destroy(): void;
}

/** Mounts an isolated frame of `kind` at the end of `container`, attached to `options.session`. */
export function mountIsolatedFields(container: Element, options: MountOptions): MountedFields {
  const fields = FRAME_FIELDS[options.kind];
  let look = lookOf(container, options);
  const frame = new IsolatedFrame({ endpoint: options.endpoint, kind: options.kind, look, title: options.title, ...(options.onSubmit ? { onSubmit: options.onSubmit } : {}) });
  container.append(frame.element);
  frame.connect(options.session);
  const errorText = options.errorText ?? ((_field: FieldName, error: FieldError) => error.text ?? error.rule);
  let shown = '';
  const unsubscribe = options.session.subscribe((state) => {
    const errors: FrameErrors = { texts: {}, invalid: fields.filter((field) => state.errors[field]) };
    for (const field of errors.invalid) {
      const slot: FrameSlot = DATE_PARTS.includes(field) ? 'dateOfBirth' : field;
      errors.texts[slot] ??= errorText(field, state.errors[field]!);
    }
    const text = JSON.stringify(errors);
    if (text === shown) return;
    shown = text;
    frame.showErrors(errors);
  });
  return {
    frame: frame.element,
    focus: (at = 'first') => frame.focus(at),
    restyle(next) {
      look = lookOf(container, { ...options, ...next });
      frame.restyle(look, next.title);
    },
    destroy() {
      unsubscribe();
      frame.destroy();
    },
  };
}

function lookOf(container: Element, options: Pick<MountOptions, 'words' | 'lang' | 'dir' | 'theme'>) {
  const lang = options.lang ?? (container.closest('[lang]')?.getAttribute('lang') || document.documentElement.lang || 'en');
  const dir = options.dir ?? (getComputedStyle(container).direction === 'rtl' ? 'rtl' : 'ltr');
  return { lang, dir, words: options.words, theme: options.theme ?? themeOf(container) } as const;
}
