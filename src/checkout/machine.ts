/**
 * The payment life as one pure function: `transition(model, event)` gives the next model and the effects to run
 * (a request, following the status, an event for the page), and reads no clock, storage or network. `GRAPH` names,
 * for each phase, the events it takes, and for each the action it runs (machine-actions.ts), the guard it runs under
 * (machine-guards.ts) and the phases it may lead to; an event it does not list changes nothing. What several actions
 * share is in machine-steps.ts and machine-errors.ts, what answers do in machine-answers.ts.
 * session.ts runs the effects and feeds the answers back as events.
 */
import { ACTIONS } from './machine-actions.js';
import { Draft } from './machine-draft.js';
import { GUARDS, type GuardName } from './machine-guards.js';
import type { MachineEvent, MachineEventType, Model, Next } from './model.js';
import { creatingOf, type Phase } from './state.js';

export { STATUS_FAILURES_BEFORE_NOTICE } from './machine-actions.js';
export { FRAME_REFUSED } from './machine-errors.js';
export { RESEND_WAIT_MS } from './machine-steps.js';

type PhaseKind = Phase['kind'];

/**
 * Where a checkout stands: its phase, or the sub-state of one that has it, `<phase>.creating` — a create was sent from
 * the form and its answer not yet seen (still to come, lost, or looked for after a reload: Phase's `creating`). It is
 * left only by a transition to a phase without it: no action clears it by hand.
 */
export type Place = PhaseKind | 'form.creating' | 'looking-up.creating';

/** The place a phase is at. */
export function placeOf(phase: Phase): Place {
  return creatingOf(phase) ? (`${phase.kind}.creating` as Place) : phase.kind;
}

/**
 * Where an event leads from a phase, as Zag writes it (`on: { EVENT: { guard, target, actions } }`): the action that
 * handles it (machine-actions.ts), the guard that must hold for it to run (machine-guards.ts; none: it always runs),
 * and the places the action may leave the checkout in (phases, or a phase's `creating` sub-state: `Place`; itself
 * included when it may stay; no targets: it never leaves the place it is at). An action never ends in a place its edge
 * does not name (test/checkout/machine.test.ts walks the machine to hold it to that).
 */
export interface Edge {
  readonly action: MachineEventType;
  readonly targets?: readonly Place[];
  readonly guard?: GuardName;
}

type Edges = { readonly [T in MachineEventType]?: Edge };

/** Showing an order leads to its step, a wait, or its result. */
const ORDER = ['action', 'waiting', 'result'] as const satisfies readonly Place[];
/** The form, and the form whose create's answer is not yet seen. */
const FORM = ['form', 'form.creating'] as const satisfies readonly Place[];
/**
 * (Re)starting a checkout leads to its configuration's error, the search for an order (for a create kept in `creating`
 * across a reload), the form or the order kept; settings that start nothing again leave a create where it is.
 */
const START = ['config-error', 'looking-up', 'looking-up.creating', ...FORM, ...ORDER] as const satisfies readonly Place[];

/** Each event's edge, its action the one named by the event. */
function edges(spec: { readonly [T in MachineEventType]?: Omit<Edge, 'action'> }): Edges {
  return Object.fromEntries(Object.entries(spec).map(([type, edge]) => [type, { action: type as MachineEventType, ...edge }]));
}

/** The places an edge may end in: its targets, else the place it leaves from. */
export function targetsOf(place: Place, edge: Edge): readonly Place[] {
  return edge.targets ?? [place];
}

/**
 * Events every phase takes: the host's, the countdown's, and the answer to a request, which may come after the phase
 * moved on (a code's answer after the stream said paid); a stale one, of a request no longer waited on, does nothing.
 * Where an answer leads depends on the phase (machine-answers.ts): each phase names it.
 */
const ALWAYS = {
  configure: { targets: START },
  resume: { guard: 'inactive' },
  pause: { guard: 'active' },
  tick: {},
  isolated: {},
  'no-answer': { guard: 'awaited' },
  'left-checked': {},
  note: {},
} as const;

/** What a phase that follows an order takes: its status (polls, checks, the stream, the expiry), leaving it. */
const FOLLOWING = {
  polled: { targets: ORDER },
  checked: { targets: ORDER },
  'stream-status': { targets: ORDER },
  'stream-schedule': {},
  expired: { targets: ['result'], guard: 'pending' },
  leave: { targets: ['form'], guard: 'leavable' },
} as const;

const { note: _idleTakesNoNote, ...IDLE } = ALWAYS;

/** The graph: for each phase, the events it takes, each with its action, guard and targets. */
export const GRAPH: Readonly<Record<PhaseKind, Edges>> = {
  idle: edges({ ...IDLE, answer: { guard: 'awaited' } }),
  'config-error': edges({ ...ALWAYS, answer: { guard: 'awaited' } }),
  form: edges({
    ...ALWAYS,
    // A create's answer: its order shown, the form kept with what went wrong (its create gone), or the next attempt
    // (which may find the configuration at fault); an answer that cannot tell goes on looking, `creating`.
    answer: { targets: [...FORM, 'config-error', ...ORDER], guard: 'awaited' },
    'left-checked': { targets: [...FORM, 'result'] },
    'select-method': { guard: 'offered' },
    input: {},
    blur: {},
    // Sent (`creating`), or the form kept with its errors, or the configuration at fault.
    submit: { targets: [...FORM, 'config-error'] },
    checked: {},
    leave: { guard: 'leavable' },
    'isolated-failed': {},
    online: { guard: 'networkAlert' },
    // An order of this checkout made on another device (a payment link of it, opened on a phone): looked up behind the form.
    elsewhere: { guard: 'newAttempt' },
  }),
  'looking-up': edges({
    ...ALWAYS,
    answer: { targets: ['looking-up', 'form', ...ORDER], guard: 'awaited' },
    // Still unknown: a create's search leaves the form in `creating`, its reference kept.
    'no-answer': { targets: ['looking-up', ...FORM, ...ORDER], guard: 'awaited' },
    'left-checked': { targets: ['looking-up', 'looking-up.creating', 'result'] },
    checked: {},
  }),
  action: edges({
    ...ALWAYS,
    ...FOLLOWING,
    answer: { targets: ORDER, guard: 'awaited' },
    'left-checked': { targets: ['action', 'result'] },
    'submit-code': { guard: 'codeStep' },
    resend: { guard: 'resendable' },
    'open-redirect': { guard: 'redirectable' },
    'window-opened': { guard: 'redirectStep' },
    'redirect-decided': { guard: 'redirectWanted' },
    returned: { guard: 'redirectPending' },
    'isolated-failed': {},
    online: { guard: 'networkAlert' },
  }),
  waiting: edges({ ...ALWAYS, ...FOLLOWING, answer: { targets: ORDER, guard: 'awaited' }, 'left-checked': { targets: ['waiting', 'result'] } }),
  result: edges({ ...ALWAYS, answer: { guard: 'awaited' }, checked: {}, leave: { targets: ['form'], guard: 'leavable' } }),
};

export function accepts(phase: PhaseKind, type: MachineEventType): boolean {
  return GRAPH[phase][type] !== undefined;
}

/**
 * The next model and effects: the same model and none for an event its phase does not take; for one whose guard
 * fails, the model as the moment leaves it (the derived countdowns, Draft.done) and no effect.
 */
export function transition(model: Model, event: MachineEvent): Next {
  const edge = GRAPH[model.state.phase.kind][event.type];
  if (!edge) return { model, effects: [] };
  const draft = new Draft(model, event.at);
  if (!edge.guard || (GUARDS[edge.guard] as (model: Model, event: MachineEvent) => boolean)(model, event)) {
    (ACTIONS[edge.action] as (d: Draft, e: MachineEvent) => void)(draft, event);
  }
  return draft.done();
}
