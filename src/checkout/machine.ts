/**
 * The payment life as one pure function: `transition(model, event)` gives the next model and the effects to run
 * (a request, following the status, an event for the page), and reads no clock, storage or network. `GRAPH` says
 * which events each phase takes; an event it does not list changes nothing. Each handler below is named by its
 * event; what several share (showing an order, the create, the answers' errors) is written once under them.
 * session.ts runs the effects and feeds the answers back as events.
 */
import { ACTIONS } from './machine-actions.js';
import { Draft } from './machine-draft.js';
import type { MachineEvent, MachineEventType, Model, Next } from './model.js';
import type { Phase } from './state.js';

export { STATUS_FAILURES_BEFORE_NOTICE } from './machine-actions.js';
export { FRAME_REFUSED } from './machine-errors.js';
export { RESEND_WAIT_MS } from './machine-steps.js';

type PhaseKind = Phase['kind'];

/**
 * Events every phase takes: the host's, the countdown's, and the answer to a request, which may come after the phase
 * moved on (a code's answer after the stream said paid); a stale one, of a request no longer waited on, does nothing.
 */
const ALWAYS = ['configure', 'resume', 'pause', 'tick', 'answer', 'no-answer', 'left-checked', 'isolated'] as const satisfies readonly MachineEventType[];
/** What a phase that follows an order takes from the status: polls, checks, the stream, the expiry. */
const FOLLOWING = ['polled', 'checked', 'stream-status', 'stream-schedule', 'expired'] as const satisfies readonly MachineEventType[];

/** The graph: the events each phase takes. */
export const GRAPH: Readonly<Record<PhaseKind, readonly MachineEventType[]>> = {
  idle: [...ALWAYS],
  'config-error': [...ALWAYS, 'note'],
  form: [...ALWAYS, 'select-method', 'input', 'blur', 'submit', 'checked', 'leave', 'note', 'isolated-failed', 'online'],
  'looking-up': [...ALWAYS, 'checked', 'note'],
  action: [...ALWAYS, ...FOLLOWING, 'submit-code', 'resend', 'open-redirect', 'window-opened', 'redirect-decided', 'returned', 'leave', 'note', 'isolated-failed', 'online'],
  waiting: [...ALWAYS, ...FOLLOWING, 'leave', 'note'],
  result: [...ALWAYS, 'checked', 'leave', 'note'],
};

export function accepts(phase: PhaseKind, type: MachineEventType): boolean {
  return GRAPH[phase].includes(type);
}

/** The next model and effects; the same model and none for an event its phase does not take. */
export function transition(model: Model, event: MachineEvent): Next {
  if (!accepts(model.state.phase.kind, event.type)) return { model, effects: [] };
  const draft = new Draft(model, event.at);
  (ACTIONS[event.type] as (d: Draft, e: MachineEvent) => void)(draft, event);
  return draft.done();
}
