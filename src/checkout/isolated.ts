/**
 * Fields the payer types where the page's scripts cannot read them: an isolated frame (src/isolated-fields, and
 * docs/isolated-fields.md) holds the bank account details, or the one-time code or the PIN. The session never sees
 * their values: it knows which fields the frame holds and the rule each one breaks, and it sends a call that needs
 * them through the frame, which adds them and posts to the merchant's kit itself.
 */
import type { ISOLATED_CALLS } from '../core/paths.js';
import type { EndpointAnswer } from './endpoint-client.js';
import type { FieldName } from './fields.js';

/** The calls whose body carries the value of an isolated field. */
export type IsolatedCall = (typeof ISOLATED_CALLS)[number];

/**
 * What a frame says of its fields: which they are, and the first rule each one breaks now (src/core's rule names:
 * `required`, `format`, `minLength`, `date`, …); a field that breaks none is absent from `broken`. Never a value.
 */
export interface IsolatedReport {
  fields: readonly FieldName[];
  broken: Readonly<Partial<Record<FieldName, string>>>;
}

/**
 * The proof a call carries to the kit: the checkout token for a create, or, where the shop's `authorize` hook decides
 * orders, the ticket the page asked for (docs/isolated-fields.md); the order's token for a code.
 */
export interface IsolatedProof {
  checkoutToken?: string | undefined;
  ticket?: string | undefined;
  orderToken?: string | undefined;
}

/** A frame of isolated fields, as a view mounted it for a session (`CheckoutSession.isolate`). */
export interface IsolatedFields {
  /** What it says of its fields when it is attached. */
  report: IsolatedReport;
  /**
   * Sends `call` with `body`, to which the frame adds the values of its fields, to the kit; resolves to the kit's
   * answer as `EndpointClient.post` gives it (its envelope, order token and expiry), rejects as it does.
   */
  send(call: IsolatedCall, body: Record<string, unknown>, proof: IsolatedProof): Promise<EndpointAnswer<unknown>>;
  /**
   * The create's proof, as soon as the session has it: a bank account frame shows the payer what it says they pay, and
   * lets them type only once it does.
   */
  bind?(proof: IsolatedProof): void;
}

/** What a view does with the frame it attached. */
export interface IsolatedLink {
  /** The frame's new report; `edited`: the field the payer changed to make it. */
  report(report: IsolatedReport, edited?: FieldName): void;
  /** The frame is gone: the form takes no more reports from it, and sends nothing through it. */
  detach(): void;
  /** The frame never greeted its page (`reason`: for the developer): the payer is told the fields could not load. */
  failed(reason: string): void;
}

/** Whether the report covers the field. */
export function isIsolated(report: IsolatedReport | undefined, field: FieldName): boolean {
  return report?.fields.includes(field) ?? false;
}
