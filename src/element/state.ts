/**
 * What `<svc-checkout>`'s parts render, passed down as their `context` property: the session's state in words of the element's
 * language (rebuilt at every update, so a change of language re-words everything), and the commands the parts
 * may send. The session owns the state; parts only render and ask.
 */
import type { ActionType, ActiveOrder, CheckoutSession, CheckoutState as SessionState, FieldName, ResultOutcome } from '../checkout/index.js';
import type { PayMethod } from '../core/index.js';
import type { LocalizeController } from './controllers/localize.js';
import type { TemplateResult, nothing } from 'lit';

export type { ActionType, ActiveOrder, ResultOutcome } from '../checkout/index.js';

/**
 * What the element shows, shaped like the session's phase: each step past the form carries its order (none while a
 * lost create is looked for, or for an order of another amount).
 */
export type Step =
  | { kind: 'config-error'; setting: string }
  | { kind: 'form' }
  | { kind: 'action'; order: ActiveOrder & { actionType: ActionType } }
  | { kind: 'waiting'; order: ActiveOrder | undefined }
  | { kind: 'result'; outcome: ResultOutcome; order: ActiveOrder | undefined };

export interface CheckoutState extends Omit<SessionState, 'phase' | 'errors' | 'alert' | 'notice'> {
  step: Step;
  /**
   * Messages at fields that have been visited or submitted, worded from their kinds (the session's rules); and one for
   * the date of birth's three boxes together.
   */
  errors: Partial<Record<FieldName | 'dateOfBirth', string>>;
  alert: WordedMessage | undefined;
  notice: WordedMessage | undefined;
}

/** How a message is meant: its colour and how urgently it is said. */
export type Tone = 'error' | 'warning' | 'info';

/** A message of the session (state.ts in src/checkout) in the element's words. */
export interface WordedMessage {
  text: string;
  tone: Tone;
}

/** What the parts may ask for: the form's commands, then the steps' (which come with the session). */
export type CheckoutActions = FormActions & StepActions & HandoffActions;

/** "Pay on your phone" (parts/pay-elsewhere) and the voucher's words: they come with the session. */
export interface HandoffActions {
  /** Whether the kit can make a link of this checkout: the element has a checkout token and an endpoint. */
  canPayOnPhone(): boolean;
  /** The kit's payment link of this checkout and its QR code's SVG (`language`: the QR code's label). */
  payOnPhone(language: string): Promise<{ url: string; qr: string }>;
  /**
   * The light check: an order of this checkout made on another device is looked up and followed (`seen`: the payer
   * just came back to the page).
   */
  checkElsewhere(language: string, seen?: boolean): Promise<void>;
  /** The shop's words on where a reference code is paid, in `language` (the element's `where-to-pay` attributes). */
  whereToPay(language: string): string | undefined;
}

export interface FormActions {
  selectMethod(method: PayMethod): void;
  input(name: FieldName, value: string): void;
  blur(name: FieldName): void;
  submit(): Promise<void>;
}

export interface StepActions {
  /** Resolves to whether the code was sent (one refused before sending is kept, to be corrected). */
  submitCode(code: string): Promise<boolean>;
  resendOtp(): Promise<void>;
  openRedirect(): void;
  copyReferenceCode(): Promise<void>;
  retry(): void;
}

export interface CheckoutContext {
  state: CheckoutState;
  actions: CheckoutActions;
  localize: LocalizeController;
  /**
   * Renders an alert: it comes with the session's chunk, as alerts do (the first frame's form has none, see
   * `formView`), so that its icons and markup stay out of the first frame.
   */
  renderAlert?: ((message: WordedMessage | undefined, options?: { urgent?: boolean; kind?: 'alert' | 'notice' }) => TemplateResult | typeof nothing) | undefined;
  /** The session, once its chunk has come: what an isolated frame attaches its fields to. */
  session?: Pick<CheckoutSession, 'isolate' | 'blur' | 'config'> | undefined;
}

/** The first frame's view: the form of a state no session has yet (no messages, no errors to word). */
export function formView(state: SessionState): CheckoutState {
  const { phase: _phase, errors: _errors, alert: _alert, notice: _notice, ...rest } = state;
  return { ...rest, step: { kind: 'form' }, errors: {}, alert: undefined, notice: undefined };
}

