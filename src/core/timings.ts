/**
 * The checkout's timings (docs/observability.md): what the element measures of a payer's way through a checkout. The
 * element tells them to the page (`svc-timing`) and, when the page asks (`send-timings`), sends them as beacons to the
 * kit (`/timings`), which publishes each on `svc-checkout:timing`. One table for both sides: a timing is a kind, a
 * duration and where the payer was — a step, a next action, a method — and nothing else: nothing of the payer, nor of
 * the order.
 */
import { NEXT_ACTION_TYPES, type NextActionType } from './status.js';
import { isPayMethod, type PayMethod } from './pay-methods.js';

/**
 * `first-frame`: the element's first frame was painted, `ms` after the page began to load (the page's time origin).
 * `first-interaction`: the payer first chose a method, typed or pressed Pay, `ms` after the page began to load.
 * `step`: the payer was `ms` on a step, and the checkout moved on. `stop`: the page went away `ms` into a step, the
 * checkout unfinished — where payers stop.
 */
export const TIMING_KINDS = ['first-frame', 'first-interaction', 'step', 'stop'] as const;
export type TimingKind = (typeof TIMING_KINDS)[number];

/** The checkout's steps, as the session's phases: the form, the search for a lost order, a next action, a wait, the result. */
export const TIMING_STEPS = ['form', 'looking-up', 'action', 'waiting', 'result', 'config-error'] as const;
export type TimingStep = (typeof TIMING_STEPS)[number];

/** A next action the payer follows, or a reference code to pay elsewhere. */
export type TimingAction = NextActionType | 'REFERENCE_CODE';

export interface CheckoutTiming {
  kind: TimingKind;
  /** Milliseconds, whole. */
  ms: number;
  /** Where the payer was (`step`, `stop`). */
  step?: TimingStep;
  /** The next action of an `action` step. */
  action?: TimingAction;
  /** The method chosen then. */
  method?: PayMethod;
}

/** The most timings one beacon carries, and the longest duration believed (a day). */
export const TIMING_LIMITS = { perBeacon: 20, maxMs: 86_400_000 } as const;

const ACTIONS: readonly string[] = [...NEXT_ACTION_TYPES, 'REFERENCE_CODE'];

/**
 * A timing as the table says one is, built field by field from what was sent (anything else it carried is left
 * behind); undefined when it is not one.
 */
export function timingOf(value: unknown): CheckoutTiming | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { kind, ms, step, action, method } = value as Record<string, unknown>;
  if (!(TIMING_KINDS as readonly unknown[]).includes(kind)) return undefined;
  if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 0 || ms > TIMING_LIMITS.maxMs) return undefined;
  const timing: CheckoutTiming = { kind: kind as TimingKind, ms };
  const onStep = kind === 'step' || kind === 'stop';
  if (onStep !== (step !== undefined) || (onStep && !(TIMING_STEPS as readonly unknown[]).includes(step))) return undefined;
  if (onStep) timing.step = step as TimingStep;
  if (action !== undefined) {
    if (step !== 'action' || !ACTIONS.includes(action as string)) return undefined;
    timing.action = action as TimingAction;
  }
  if (method !== undefined) {
    if (!onStep || !isPayMethod(method)) return undefined;
    timing.method = method;
  }
  return timing;
}
