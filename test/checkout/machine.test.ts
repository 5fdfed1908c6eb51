/**
 * The checkout machine as a table: every phase against every event. An event a phase's graph does not list changes
 * nothing and asks for nothing; every event it lists does what its row says (the next phase and the effects, in
 * order). Pure: no kit, no clock, no storage — the models are made by the machine itself from configurations.
 */
import { describe, expect, it, vi } from 'vitest';
import { resolveConfig, type ActiveOrder, type IsolatedReport } from '../../src/checkout/index.js';
import { BANK_ACCOUNT_FIELDS } from '../../src/checkout/bank-account-fields.js';
import { GRAPH, placeOf, targetsOf, transition, type Edge, type Place } from '../../src/checkout/machine.js';
import { GUARDS } from '../../src/checkout/machine-guards.js';
import { ELSEWHERE_RECHECK_MS, savedOf, type Effect, type MachineEvent, type MachineEventType, type Model } from '../../src/checkout/model.js';
import type { Phase } from '../../src/checkout/state.js';
import * as core from '../../src/core/index.js';
import { AT, configure, idle, PAGE, run, saving, SETTINGS } from '../support/machine-fixture.js';

vi.mock('../../src/core/validate.js', async (original) => {
  const module = await original<typeof import('../../src/core/validate.js')>();
  return { ...module, validate: vi.fn(module.validate) };
});

type PhaseKind = Phase['kind'];

/** What an isolated frame of the bank account details says when nothing is typed in it yet. */
const BANK_FIELDS = BANK_ACCOUNT_FIELDS.map((field) => field.name);
const BANK_FRAME: IsolatedReport = { fields: BANK_FIELDS, broken: Object.fromEntries(BANK_FIELDS.map((name) => [name, 'required'])) };
const ORDER: ActiveOrder = { reference: 'order-1', orderNo: '26112600000001', payMethod: 'BankAccount', status: 'PENDING', country: 'EG', token: 'ot1.x.y' };

const FORM = run(idle, configure(SETTINGS), { type: 'input', name: 'sn', value: 'N78101818218', at: AT }).model;

/** A model at each place (each phase, and each phase's `creating` sub-state), made by the machine. */
const MODELS: Record<Place, Model> = {
  idle,
  'config-error': run(idle, configure({ ...SETTINGS, endpoint: undefined })).model,
  form: FORM,
  // The form's create sent, its answer not yet seen.
  'form.creating': run(FORM, { type: 'submit', at: AT }).model,
  // A status-only page looks for the latest attempt.
  'looking-up': run(idle, configure({ ...SETTINGS, statusOnly: true })).model,
  // A create kept across a reload, its answer never seen: its order is looked for.
  'looking-up.creating': run(idle, configure(SETTINGS, saving({ creating: { reference: 'order-1', payMethod: 'Pos', known: { sn: 'N78101818218', actionType: 'SWIPE_CARD' } } }))).model,
  action: run(idle, configure(SETTINGS, saving({ order: { ...ORDER, actionType: 'INPUT_OTP' } }))).model,
  waiting: run(idle, configure(SETTINGS, saving({ order: ORDER }))).model,
  result: run(idle, configure(SETTINGS, saving({ order: { ...ORDER, status: 'SUCCESS' } }))).model,
};

const status = (data: Partial<core.CashierStatusData> & { status: string }) => ({
  envelope: { code: '00000', message: 'SUCCESSFUL', data: { reference: 'order-1', orderNo: '26112600000001', ...data } as core.CashierStatusData },
});
const requestOf = (model: Model) => model.state.busy ? (model.request?.id ?? 0) : 0;

/** An event of each type, as it would reach a model (an answer answers the model's request, if any). */
const EVENTS: Record<MachineEventType, (model: Model) => MachineEvent> = {
  configure: () => configure(SETTINGS),
  resume: () => ({ type: 'resume', at: AT }),
  pause: () => ({ type: 'pause', at: AT }),
  tick: () => ({ type: 'tick', at: AT + 1_000 }),
  'select-method': () => ({ type: 'select-method', method: 'BankAccount', at: AT }),
  input: () => ({ type: 'input', name: 'sn', value: 'N1', at: AT }),
  blur: () => ({ type: 'blur', name: 'sn', at: AT }),
  submit: () => ({ type: 'submit', at: AT }),
  'submit-code': () => ({ type: 'submit-code', code: '11315632', at: AT }),
  resend: () => ({ type: 'resend', at: AT }),
  'open-redirect': () => ({ type: 'open-redirect', at: AT }),
  leave: () => ({ type: 'leave', at: AT }),
  note: () => ({ type: 'note', message: { kind: 'copied' }, at: AT }),
  answer: (model) => ({ type: 'answer', request: requestOf(model), answer: status({ status: 'PENDING' }), at: AT }),
  'no-answer': (model) => ({ type: 'no-answer', request: requestOf(model), failure: { code: undefined, message: 'offline', retryable: true }, at: AT }),
  online: () => ({ type: 'online', at: AT }),
  polled: () => ({ type: 'polled', reference: 'order-1', answer: status({ status: 'SUCCESS' }), at: AT }),
  checked: () => ({ type: 'checked', reference: 'order-1', answer: status({ status: 'SUCCESS' }), at: AT }),
  'stream-status': () => ({ type: 'stream-status', status: { reference: 'order-1', orderNo: '26112600000001', status: 'SUCCESS' }, at: AT }),
  'stream-schedule': () => ({ type: 'stream-schedule', reference: 'order-1', durationMs: 600_000, at: AT }),
  expired: () => ({ type: 'expired', at: AT }),
  'redirect-decided': () => ({ type: 'redirect-decided', orderNo: '26112600000001', go: true, at: AT }),
  'window-opened': () => ({ type: 'window-opened', blocked: true, at: AT }),
  returned: () => ({ type: 'returned', at: AT }),
  'left-checked': () => ({ type: 'left-checked', reference: 'order-0', answer: status({ reference: 'order-0', status: 'SUCCESS' }), at: AT }),
  isolated: () => ({ type: 'isolated', report: BANK_FRAME, edited: 'bankAccountNumber', at: AT }),
  'isolated-failed': () => ({ type: 'isolated-failed', reason: 'the isolated fields did not load', at: AT }),
  elsewhere: () => ({ type: 'elsewhere', attempt: 1, at: AT }),
};
const TYPES = Object.keys(EVENTS) as MachineEventType[];

/** An effect as the table writes it. */
function named(effect: Effect): string {
  if (effect.type === 'post' || effect.type === 'post-isolated') return `${effect.type} ${effect.call}`;
  if (effect.type === 'emit') return effect.event.type;
  return effect.type;
}

/** `same`: nothing changes and nothing is asked for (a guard said no). */
type Outcome = [Place, ...string[]] | 'same';

/**
 * What a place waiting on no request takes alike: resumed where it stands; a pause, a tick, an answer or none (to a
 * request no longer waited on), a left order's check and the isolated frame's report change nothing.
 */
function resting(place: Place): Partial<Record<MachineEventType, Outcome>> {
  return { resume: [place, 'connect'], pause: 'same', tick: 'same', answer: 'same', 'no-answer': 'same', 'left-checked': 'same', isolated: 'same' };
}

/**
 * What a followed order (its step, or a wait) takes at `place`: its status told in any way (a poll, a check, the
 * stream) ends it with its result, as its expiry does; the stream's schedule retimes it; it may be left.
 */
function followed(place: 'action' | 'waiting'): Partial<Record<MachineEventType, Outcome>> {
  const paid: Outcome = ['result', 'pay-result', 'announce', 'unfollow', 'announce'];
  return {
    configure: [place],
    ...resting(place),
    polled: paid,
    checked: paid,
    'stream-status': paid,
    'stream-schedule': [place, 'retime'],
    expired: ['result', 'unfollow', 'announce', 'expired'],
    leave: ['form', 'unfollow', 'change'],
    note: [place, 'announce'],
  };
}

/**
 * Each event each phase takes, and what it does: the phase after, then the effects in order (`announce`, `change`,
 * … are events for the page; `post <call>` a request to the kit).
 */
const TABLE: Record<Place, Partial<Record<MachineEventType, Outcome>>> = {
  idle: { configure: ['form', 'unfollow', 'ready'], ...resting('idle') },
  'config-error': { configure: ['form', 'unfollow', 'ready'], ...resting('config-error'), note: ['config-error', 'announce'] },
  form: {
    configure: ['form'],
    resume: ['form', 'connect'],
    pause: 'same',
    tick: 'same',
    answer: 'same',
    'no-answer': 'same',
    'left-checked': 'same',
    // A change the payer made in the frame is an input: the page hears it.
    isolated: ['form', 'change'],
    // The payer is told, the page hears a CONFIG error.
    'isolated-failed': ['form', 'error'],
    // Back online with no "could not reach the shop" to take back (test/browser/payer-review.test.ts has one).
    online: 'same',
    'select-method': ['form', 'change'],
    input: ['form', 'change'],
    blur: ['form'],
    submit: ['form.creating', 'announce', 'post create'],
    checked: 'same',
    leave: ['form', 'unfollow', 'change'],
    note: ['form', 'announce'],
    // An order of this checkout made on another device: looked up at the kit's attempt behind the form (not busy: the
    // form stays as the payer has it, and may be sent), then followed once found.
    elsewhere: ['form', 'post status'],
  },
  // A create sent, its answer not yet seen: busy, nothing else is sent; its answer leaves the sub-state.
  'form.creating': {
    configure: ['form.creating'],
    resume: ['form.creating', 'connect'],
    pause: 'same',
    tick: 'same',
    // An answer that makes the order: its step or a wait (here, pending without a next step).
    answer: ['waiting', 'http-response', 'pay-result', 'announce', 'announce', 'follow'],
    // No answer: its reference is looked for, still `creating`.
    'no-answer': ['form.creating', 'post status'],
    'left-checked': 'same',
    isolated: ['form.creating', 'change'],
    'isolated-failed': ['form.creating', 'error'],
    online: 'same',
    // Nothing under way may change the method, be sent again, be left, or be looked for elsewhere.
    'select-method': 'same',
    input: ['form.creating', 'change'],
    blur: 'same',
    submit: 'same',
    checked: 'same',
    leave: 'same',
    note: ['form.creating', 'announce'],
    elsewhere: 'same',
  },
  // A status-only page looks for the latest attempt, one reference after another.
  'looking-up': {
    configure: ['looking-up'],
    resume: ['looking-up', 'connect'],
    pause: 'same',
    tick: 'same',
    answer: ['looking-up', 'post status'],
    'no-answer': ['looking-up', 'announce', 'error'],
    'left-checked': 'same',
    isolated: 'same',
    checked: 'same',
    note: ['looking-up', 'announce'],
  },
  'looking-up.creating': {
    configure: ['looking-up.creating'],
    resume: ['looking-up.creating', 'connect'],
    pause: 'same',
    tick: 'same',
    answer: ['action', 'pay-result', 'announce', 'action', 'announce', 'follow'],
    // Still unknown: the form, its create kept (a retry sends the same reference, a reload looks again).
    'no-answer': ['form.creating', 'announce', 'error'],
    'left-checked': 'same',
    isolated: 'same',
    checked: 'same',
    note: ['looking-up.creating', 'announce'],
  },
  // An order's step: what any followed order takes, and the step's own events.
  action: {
    ...followed('action'),
    'isolated-failed': ['action', 'error'],
    online: 'same',
    'submit-code': ['action', 'post otp'],
    resend: ['action', 'post resendOtp'],
    'open-redirect': 'same',
    'window-opened': 'same',
    'redirect-decided': 'same',
    returned: 'same',
  },
  waiting: followed('waiting'),
  result: {
    configure: ['result'],
    ...resting('result'),
    checked: 'same',
    // A paid checkout is never left (a failed one is: below).
    leave: 'same',
    note: ['result', 'announce'],
  },
};

const PLACES = Object.keys(MODELS) as Place[];
/** The phase of a place (a sub-state takes its phase's events). */
const phaseOf = (place: Place) => place.split('.')[0] as PhaseKind;
/** Every place GRAPH names: its phases, and each target of each edge. */
const NAMED = new Set<Place>([...(Object.keys(GRAPH) as PhaseKind[]), ...Object.values(GRAPH).flatMap((edges) => Object.values(edges).flatMap((edge) => edge?.targets ?? []))]);

describe('the checkout machine, place by event', () => {
  it('makes a model at each place from configurations alone', () => {
    for (const place of PLACES) expect(placeOf(MODELS[place].state.phase), place).toBe(place);
    expect(MODELS['looking-up'].state.busy).toBe(true);
    expect(MODELS['form.creating'].state.busy).toBe(true);
  });

  it('has a model and a row at each place GRAPH names, and names each place a model stands at', () => {
    expect([...NAMED].sort()).toEqual([...PLACES].sort());
    expect(Object.keys(TABLE).sort()).toEqual([...PLACES].sort());
  });

  it('takes events that are plain data: each survives a JSON round trip (no Error object, nothing to test with instanceof)', () => {
    for (const place of PLACES) {
      for (const type of TYPES) {
        const event = EVENTS[type](MODELS[place]);
        expect(JSON.parse(JSON.stringify(event)), `${place} × ${type}`).toEqual(event);
      }
    }
  });

  it('lists in its table exactly the events each place takes (its phase\'s)', () => {
    for (const place of PLACES) expect(Object.keys(TABLE[place]).sort(), place).toEqual(Object.keys(GRAPH[phaseOf(place)]).sort());
  });

  it('refuses every event a place does not take: the same model, no effect', () => {
    let refused = 0;
    for (const place of PLACES) {
      for (const type of TYPES.filter((type) => GRAPH[phaseOf(place)][type] === undefined)) {
        const model = MODELS[place];
        const next = transition(model, EVENTS[type](model));
        expect(next.model, `${place} × ${type}`).toBe(model);
        expect(next.effects, `${place} × ${type}`).toEqual([]);
        refused += 1;
      }
    }
    expect(refused).toBe(PLACES.reduce((sum, place) => sum + TYPES.length - Object.keys(GRAPH[phaseOf(place)]).length, 0));
  });

  for (const place of PLACES) {
    for (const [type, outcome] of Object.entries(TABLE[place]) as [MachineEventType, Outcome][]) {
      it(`${place} × ${type}: ${outcome === 'same' ? 'nothing' : outcome.join(', ')}`, () => {
        const model = MODELS[place];
        const event = EVENTS[type](model);
        const next = transition(model, event);
        const edge = GRAPH[phaseOf(place)][type]!;
        expect(edge.action, 'the action GRAPH names').toBe(type);
        if (outcome === 'same') {
          expect(next.model.state).toEqual(model.state);
          expect(next.effects.map(named)).toEqual([]);
          // Nothing happened: its guard said no, or its action stays, which GRAPH must then name.
          if (!guardHolds(edge, model, event)) return;
        }
        // The place after is one of GRAPH's targets for this edge (a single target is the place expected), and a row
        // that says otherwise, or an action that leads elsewhere, fails here.
        const expected = outcome === 'same' ? place : outcome[0];
        const targets = targetsOf(place, edge);
        const reached = placeOf(next.model.state.phase);
        expect(targets, `${place} × ${type} reaches ${reached}: GRAPH names ${targets.join(', ')}`).toContain(reached);
        if (targets.length === 1) expect(expected).toBe(targets[0]);
        expect(reached).toBe(expected);
        if (outcome !== 'same') expect(next.effects.map(named)).toEqual(outcome.slice(1));
      });
    }
  }
});

/** Whether an edge's guard lets its action run on this model and event. */
function guardHolds(edge: Edge, model: Model, event: MachineEvent): boolean {
  return !edge.guard || (GUARDS[edge.guard] as (model: Model, event: MachineEvent) => boolean)(model, event);
}

/** Answers of every kind a request may get: statuses, a create's next step, the service's refusals. */
const ANSWER_KINDS = [
  status({ status: 'PENDING' }),
  status({ status: 'SUCCESS' }),
  status({ status: 'FAIL' }),
  status({ status: 'PENDING', amount: { total: 1, currency: 'EGP' } } as never),
  { envelope: { code: '00000', message: 'SUCCESSFUL', data: { reference: 'order-1', orderNo: '26112600000009', status: 'PENDING', nextAction: { actionType: 'INPUT_OTP' } } } },
  { envelope: { code: '00000', message: 'SUCCESSFUL', data: { reference: 'order-1', orderNo: '26112600000009', status: 'PENDING', nextAction: { actionType: 'REDIRECT_3DS', redirectUrl: 'https://bank.example/3ds' } } } },
  { envelope: { code: '50003', message: 'service not available, please try again.', data: null } },
  { envelope: { code: '02004', message: 'the payment reference already exists.', data: null } },
  { envelope: { code: '02001', message: 'request params not valid.', data: { errors: [{ field: 'otp', rule: 'mismatch', message: 'wrong code', triesLeft: 2 }] } } },
  { envelope: { code: 'CHECKOUT_CHANGED', message: 'this cart was paid at another amount.', data: null } },
] as unknown as Extract<MachineEvent, { type: 'answer' }>['answer'][];

describe('the checkout machine walked at random: every step lands where GRAPH says', () => {
  // A small seeded generator (mulberry32): the same walks at every run, different from one another.
  const random = (seed: number) => () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };

  it('never leaves a place for one its edge does not name, nor for one GRAPH does not name, and stays put when its guard says no', () => {
    const reached = new Set<string>();
    for (const [index, start] of PLACES.entries()) {
      for (let walk = 0; walk < 16; walk += 1) {
        const next = random(1_000 * index + walk + 1);
        let model = MODELS[start];
        for (let step = 0; step < 60; step += 1) {
          const type = TYPES[Math.floor(next() * TYPES.length)] as MachineEventType;
          const made = EVENTS[type](model);
          const event = made.type === 'answer' ? { ...made, answer: ANSWER_KINDS[Math.floor(next() * ANSWER_KINDS.length)]! } : made;
          const before = placeOf(model.state.phase);
          const edge = GRAPH[phaseOf(before)][type];
          const after = transition(model, event).model;
          const place = placeOf(after.state.phase);
          expect([...NAMED], `${before} × ${type} reaches ${place}, a place GRAPH does not name`).toContain(place);
          if (!edge) expect(after, `${before} × ${type}`).toBe(model);
          else if (!guardHolds(edge, model, event)) expect(place, `${before} × ${type} (guard ${edge.guard} says no)`).toBe(before);
          else {
            const targets = targetsOf(before, edge);
            expect(targets, `${before} × ${type} reaches ${place}: GRAPH names ${targets.join(', ')}`).toContain(place);
            reached.add(`${before} -> ${place}`);
          }
          model = after;
        }
      }
    }
    // The walks go somewhere: from the form to an order's step and its result, and back to the form; into a create and
    // out of it, whatever its answer.
    for (const path of [
      'form -> form.creating',
      'form.creating -> action',
      'form.creating -> form',
      'form.creating -> result',
      'action -> result',
      'action -> form',
      'looking-up.creating -> action',
      'looking-up.creating -> form.creating',
      'waiting -> result',
    ]) {
      expect([...reached]).toContain(path);
    }
  });
});

describe('paths the table does not reach', () => {
  const form = MODELS.form;
  const submitted = run(form, EVENTS.submit(form));
  const created = (data: Partial<core.CreatePaymentData>, headers: { orderToken?: string; expiresIn?: number } = {}) =>
    ({ type: 'answer', request: submitted.model.request!.id, answer: { envelope: { code: '00000', message: 'SUCCESSFUL', data: { reference: 'order-1', orderNo: '26112600000009', status: 'PENDING', ...data } }, ...headers }, at: AT + 500 }) as MachineEvent;

  it('a create in flight: busy, its reference kept in the form\'s `creating`, a second submit refused', () => {
    expect(submitted.model.state.busy).toBe(true);
    expect(submitted.model.state.phase).toEqual({ kind: 'form', creating: { reference: 'order-1', payMethod: 'Pos', known: { sn: 'N78101818218', actionType: 'SWIPE_CARD' } } });
    expect(transition(submitted.model, EVENTS.submit(submitted.model)).model).toBe(submitted.model);
  });

  it('a create answered: the next step, followed, the answer told to the page first', () => {
    const next = transition(submitted.model, created({ nextAction: { actionType: 'SWIPE_CARD' } }, { orderToken: 'ot1.a.b', expiresIn: 1_800 }));
    expect(next.model.state.phase).toMatchObject({ kind: 'action', order: { actionType: 'SWIPE_CARD', token: 'ot1.a.b', expiresAt: AT + 500 + 1_800_000 } });
    expect(placeOf(next.model.state.phase)).toBe('action');
    expect(next.model.state.busy).toBe(false);
    expect(next.effects.map(named)).toEqual(['http-response', 'pay-result', 'announce', 'action', 'announce', 'follow']);
  });

  it('a create without an answer: its reference is looked up before anything is said', () => {
    const next = transition(submitted.model, { type: 'no-answer', request: submitted.model.request!.id, failure: { code: undefined, message: 'offline', retryable: true }, at: AT });
    expect(next.model.request).toMatchObject({ kind: 'lookup', reference: 'order-1', lost: true });
    expect(next.effects.map(named)).toEqual(['post status']);
    expect(next.model.state.alert).toBeUndefined();
  });

  it('a create refused for what the payer cannot change: said, in the live region too, the form kept, the page told what', () => {
    const refusals: [string, core.Envelope<unknown>, string][] = [
      ['02001 at reference', { code: '02001', message: 'request params not valid.', data: { errors: [{ field: 'reference', rule: 'sequence', message: 'attempt 3 of this checkout needs attempt 2 first' }] } }, 'reference (sequence)'],
      ['02001 at returnUrl', { code: '02001', message: 'request params not valid.', data: { errors: [{ field: 'returnUrl', rule: 'origin', message: "returnUrl must be a page of the shop's own origin" }] } }, 'returnUrl (origin)'],
      ['02001 with no field', { code: '02001', message: 'request params not valid.', data: null }, 'request params not valid.'],
      ['02002', { code: '02002', message: 'merchant not configured with this function.', data: null }, 'merchant not configured'],
      ['02007', { code: '02007', message: 'merchant not available.', data: null }, 'merchant not available'],
      ['ATTEMPTS_EXHAUSTED', { code: 'ATTEMPTS_EXHAUSTED', message: 'no attempt of this checkout is left.', data: null }, 'no attempt'],
    ];
    for (const [kind, envelope, named] of refusals) {
      const next = transition(submitted.model, { type: 'answer', request: submitted.model.request!.id, answer: { envelope }, at: AT });
      expect(next.model.state.phase.kind, kind).toBe('form');
      expect(next.model.state.alert, kind).toEqual({ kind: 'unavailable' });
      expect(next.model.state.values.Pos, kind).toEqual(submitted.model.state.values.Pos);
      const emitted = next.effects.flatMap((effect) => (effect.type === 'emit' ? [effect.event] : []));
      expect(emitted.filter((event) => event.type === 'announce').map((event) => event.detail), kind).toContainEqual({ kind: 'unavailable' });
      const error = emitted.find((event) => event.type === 'error');
      expect(error?.detail, kind).toMatchObject({ code: envelope.code, retryable: false });
      expect((error?.detail as { message: string }).message, kind).toContain(named);
      // A field the merchant configured (the element checks none of them: the kit does) is named by its setting in the log.
      const logged = next.effects.flatMap((effect) => (effect.type === 'log' ? [effect.message] : []));
      const setting = { '02001 at reference': ['svc-checkout: reference: the kit refused reference'], '02001 at returnUrl': ['svc-checkout: return-url: the kit refused returnUrl'] }[kind];
      expect(logged, kind).toEqual(setting ?? []);
    }
  });

  it("the kit's record naming an attempt: looked up behind the form, which stays as it is (a create refused here made no order), and an order found there is shown", () => {
    const envelope = { code: '02002', message: 'merchant not configured with this function.', data: null };
    const refused = transition(submitted.model, { type: 'answer', request: submitted.model.request!.id, answer: { envelope }, at: AT });
    expect(refused.model.state.phase).toEqual({ kind: 'form' });
    expect(refused.model.state.alert).toBeDefined();
    // The light check names the page's own refused attempt: asked about, the form kept, not busy, the refusal still said.
    const asked = transition(refused.model, { type: 'elsewhere', attempt: refused.model.attempt, at: AT });
    expect(asked.effects.map(named)).toEqual(['post status']);
    expect(asked.model.state.phase).toEqual({ kind: 'form' });
    expect(asked.model.state.busy).toBe(false);
    expect(asked.model.state.alert).toEqual(refused.model.state.alert);
    const request = asked.model.request!.id;
    // No order there: nothing changes for the payer.
    const none = transition(asked.model, { type: 'answer', request, answer: { envelope: { code: 'ORDER_NOT_FOUND', message: 'no such order', data: null } }, at: AT });
    expect(none.effects).toEqual([]);
    expect(none.model.state).toEqual(refused.model.state);
    // Named again at the next light checks (every 3 s): not asked about again for ELSEWHERE_RECHECK_MS, then asked.
    const again = (at: number) => transition(none.model, { type: 'elsewhere', attempt: refused.model.attempt, at });
    expect(again(AT + 3_000).effects).toEqual([]);
    expect(again(AT + ELSEWHERE_RECHECK_MS).effects.map(named)).toEqual(['post status']);
    // The payer back on the page (they may have paid on their phone meanwhile): asked at once.
    expect(transition(none.model, { type: 'elsewhere', attempt: refused.model.attempt, seen: true, at: AT + 3_000 }).effects.map(named)).toEqual(['post status']);
    // A later attempt is news at once.
    expect(transition(none.model, { type: 'elsewhere', attempt: refused.model.attempt + 1, at: AT + 3_000 }).effects.map(named)).toEqual(['post status']);
    // The kit unreachable meanwhile: nothing said of a check the payer did not ask for; the next check asks again.
    const unanswered = transition(asked.model, { type: 'no-answer', request, failure: { kind: 'network' } as never, at: AT });
    expect(unanswered.effects).toEqual([]);
    expect(unanswered.model.state).toEqual(refused.model.state);
    // The payer sends the form meanwhile: sent, the lookup's answer then waited on by nobody.
    const sent = transition(asked.model, EVENTS.submit(asked.model));
    expect(sent.effects.map(named)).toContain('post create');
    expect(transition(sent.model, { type: 'answer', request, answer: status({ status: 'PENDING' }), at: AT }).model).toBe(sent.model);
    // Another device paid at that attempt since: its order is shown and followed.
    const found = transition(asked.model, { type: 'answer', request, answer: status({ status: 'PENDING', payMethod: 'ReferenceCode' } as never), at: AT });
    expect(found.model.state.phase.kind).not.toBe('form');
    expect(found.effects.map(named)).toContain('follow');
  });

  it("an order found behind the form replaces the form only: a result shown meanwhile stays", () => {
    // The payer had left an order of this checkout while it was pending; the page asks behind the form about the attempt
    // the kit's record names, and meanwhile learns that the left order was paid after all: the checkout is paid.
    const form = run(idle, configure(SETTINGS, saving({ leftOrders: ['order-0'] }))).model;
    const asked = transition(form, { type: 'elsewhere', attempt: 1, at: AT });
    expect(asked.effects.map(named)).toEqual(['post status']);
    const paid = transition(asked.model, EVENTS['left-checked'](asked.model));
    expect(paid.model.state.phase).toMatchObject({ kind: 'result', outcome: 'SUCCESS' });
    const late = transition(paid.model, { type: 'answer', request: asked.model.request!.id, answer: status({ status: 'PENDING' }), at: AT });
    expect(late.model.state.phase).toEqual(paid.model.state.phase);
    expect(late.effects).toEqual([]);
  });

  it('a create the kit refused because the cart was paid at another amount: no payment of this checkout, said', () => {
    const envelope = { code: 'CHECKOUT_CHANGED', message: 'this cart was paid at another amount.', data: { reference: 'order-1', orderNo: '26112600000002', status: 'SUCCESS', amount: { total: 100, currency: 'EGP' } } };
    const next = transition(submitted.model, { type: 'answer', request: submitted.model.request!.id, answer: { envelope }, at: AT });
    expect(next.model.state.phase).toEqual({ kind: 'result', outcome: 'MISMATCH' });
    expect(next.effects.map(named)).toEqual(['http-response', 'unfollow', 'announce', 'error']);
  });

  it('a create answered with the attempt the kit made: the page goes on from it', () => {
    const next = transition(submitted.model, created({ reference: 'order-1--3', nextAction: { actionType: 'SWIPE_CARD' } }));
    expect(next.model.attempt).toBe(3);
    expect(next.model.state.phase).toMatchObject({ kind: 'action', order: { reference: 'order-1--3' } });
  });

  it('a duplicate whose order failed: the next attempt is sent once, by itself', () => {
    const duplicate = transition(submitted.model, { type: 'answer', request: submitted.model.request!.id, answer: { envelope: { code: '02004', message: 'dup', data: null } }, at: AT });
    expect(duplicate.effects.map(named)).toEqual(['http-response', 'post status']);
    const failed = transition(duplicate.model, { type: 'answer', request: duplicate.model.request!.id, answer: status({ status: 'FAIL', amount: { total: 12500, currency: 'EGP' } }), at: AT });
    expect(failed.model.attempt).toBe(2);
    expect(failed.effects).toContainEqual(expect.objectContaining({ type: 'post', call: 'create', body: expect.objectContaining({ reference: 'order-1--2' }) }));
  });

  it('an OTP step just shown waits 30 s before "send again", and the wait counts down by the moment', () => {
    const next = transition(submitted.model, created({ nextAction: { actionType: 'INPUT_OTP' } }));
    expect(next.model.state.resendWait).toBe(30);
    expect(transition(next.model, { type: 'resend', at: AT + 10_000 }).effects).toEqual([]);
    expect(transition(next.model, { type: 'tick', at: AT + 10_500 }).model.state.resendWait).toBe(20);
    expect(transition(next.model, { type: 'resend', at: AT + 30_500 }).effects.map(named)).toEqual(['post resendOtp']);
  });

  it('a wrong code: the tries left come from the answer, never from its words', () => {
    const action = MODELS.action;
    const sent = run(action, EVENTS['submit-code'](action));
    const wrong = transition(sent.model, {
      type: 'answer',
      request: sent.model.request!.id,
      answer: { envelope: { code: '02001', message: 'invalid', data: { errors: [{ field: 'otp', rule: 'mismatch', message: 'no: 9 attempts left', triesLeft: 2 }] } } },
      at: AT,
    });
    expect(wrong.model.state.errors).toEqual({ otp: { rule: 'mismatch', left: 2 } });
  });

  it('a 3-D Secure step: leaves in this window, or opens one and says when it was blocked', () => {
    const redirect = run(idle, configure(SETTINGS, saving({ order: { ...ORDER, actionType: 'REDIRECT_3DS', redirectUrl: 'https://bank.example/3ds' } }))).model;
    const left = transition(redirect, EVENTS['open-redirect'](redirect));
    expect(left.effects).toEqual([{ type: 'navigate', url: 'https://bank.example/3ds' }]);
    expect(left.model.state.phase).toMatchObject({ order: { redirected: true } });
    const other = run(idle, configure({ ...SETTINGS, redirectMode: 'new-window' }, saving({ order: { ...ORDER, actionType: 'REDIRECT_3DS', redirectUrl: 'https://bank.example/3ds' } }))).model;
    expect(transition(other, EVENTS['open-redirect'](other)).effects).toEqual([{ type: 'open-window', url: 'https://bank.example/3ds' }]);
    const blocked = transition(other, EVENTS['window-opened'](other));
    expect(blocked.model.state).toMatchObject({ redirectBlocked: true, alert: { kind: 'redirect-blocked' } });
    expect(transition(redirect, EVENTS.returned(redirect)).effects.map(named)).toEqual(['check-status']);
    // A decision to go is acted on only while the host is on screen.
    expect(transition(redirect, EVENTS['redirect-decided'](redirect)).effects).toEqual([]);
    const active = run(redirect, EVENTS.resume(redirect)).model;
    expect(transition(active, EVENTS['redirect-decided'](active)).effects.map(named)).toEqual(['navigate']);
  });

  it('a stale answer (of a request no longer waited on) changes nothing', () => {
    const reconfigured = run(submitted.model, configure({ ...SETTINGS, reference: 'order-2' })).model;
    const late = transition(reconfigured, created({ nextAction: { actionType: 'SWIPE_CARD' } }));
    expect(late.model).toBe(reconfigured);
  });

  it('leaves a failed order for the next attempt, and a pending one on purpose: the next create tells the kit', () => {
    const failed = run(idle, configure(SETTINGS, saving({ order: { ...ORDER, status: 'FAIL' } }))).model;
    const again = transition(failed, EVENTS.leave(failed)).model;
    expect([again.state.phase.kind, again.attempt, again.left]).toEqual(['form', 2, false]);
    const pending = transition(MODELS.waiting, EVENTS.leave(MODELS.waiting)).model;
    expect([pending.state.phase.kind, pending.attempt, pending.left]).toEqual(['form', 2, true]);
    expect(savedOf(pending)).toMatchObject({ attempt: 2, left: true });
    const typed = run(pending, { type: 'select-method', method: 'Pos', at: AT }, { type: 'input', name: 'sn', value: 'N78101818218', at: AT });
    const sent = transition(typed.model, EVENTS.submit(typed.model));
    expect(sent.effects).toContainEqual(expect.objectContaining({ type: 'post', call: 'create', body: expect.objectContaining({ reference: 'order-1--2', leaving: true }) }));
    // A plain create never says so.
    expect(submitted.effects).toContainEqual(expect.objectContaining({ type: 'post', call: 'create', body: expect.not.objectContaining({ leaving: true }) }));
  });

  it("shows the checkout's order the kit answers with instead of making another (ORDER_EXISTS): paid, the receipt", () => {
    const exists = transition(submitted.model, {
      type: 'answer',
      request: submitted.model.request!.id,
      answer: { envelope: { code: 'ORDER_EXISTS', message: 'exists', data: { reference: 'order-1', orderNo: '26112600000001', status: 'SUCCESS' } }, orderToken: 'ot1.p.q' },
      at: AT,
    });
    expect(exists.model.state.phase).toMatchObject({ kind: 'result', outcome: 'SUCCESS', order: { reference: 'order-1', orderNo: '26112600000001', token: 'ot1.p.q', methodUnknown: true } });
    expect(exists.effects.map(named)).toEqual(['http-response', 'pay-result', 'announce', 'unfollow', 'announce']);
    expect(savedOf(exists.model)?.creating).toBeUndefined();
  });

  it("says at the code's field that the kit's limit of wrong codes is reached, with no wait to count down", () => {
    const sent = run(MODELS.action, EVENTS['submit-code'](MODELS.action));
    const refused = transition(sent.model, {
      type: 'answer',
      request: sent.model.request!.id,
      answer: { envelope: { code: 'TOO_MANY_REQUESTS', message: 'too many', data: { limit: 'wrongCodesPerOrder', retryAfterSeconds: 86_399 } } },
      at: AT,
    });
    expect(refused.model.state.errors).toEqual({ otp: { rule: 'exhausted' } });
    expect(refused.model.state.alert).toBeUndefined();
    expect(refused.effects).toContainEqual({ type: 'emit', event: { type: 'error', detail: { code: 'TOO_MANY_REQUESTS', message: 'too many', retryable: false } } });
  });

  it('keeps a code step\'s wait and the tries left across a reload', () => {
    const action = run(MODELS.action, EVENTS['submit-code'](MODELS.action));
    const wrong = transition(action.model, {
      type: 'answer',
      request: action.model.request!.id,
      answer: { envelope: { code: '02001', message: 'invalid', data: { errors: [{ field: 'otp', rule: 'mismatch', message: 'wrong', triesLeft: 1 }] } } },
      at: AT,
    }).model;
    const resent = run(wrong, EVENTS.resend(wrong));
    const waiting = transition(resent.model, { type: 'answer', request: resent.model.request!.id, answer: { envelope: { code: '00000', message: 'SUCCESSFUL', data: null } }, at: AT }).model;
    const saved = savedOf(waiting)!;
    expect(saved.order).toMatchObject({ triesLeft: 1, resendAllowedAt: AT + 30_000 });
    const reloaded = run(idle, configure(SETTINGS, saved), { type: 'tick', at: AT + 12_000 }).model;
    expect(reloaded.state.resendWait).toBe(18);
    expect(reloaded.state.errors).toEqual({ otp: { rule: 'mismatch', left: 1 } });
  });

  it('finds the attempt the kit named in the token before it offers a form (a second tab, a fresh token)', () => {
    const started = run(idle, configure({ ...SETTINGS }, undefined));
    expect(started.model.state.phase.kind).toBe('form');
    const { config } = resolveConfig(SETTINGS, undefined, undefined, () => undefined);
    const named = transition(idle, { ...configure(SETTINGS), config: { ...config, startAttempt: 2, started: true } } as MachineEvent);
    expect(named.model.state.phase.kind).toBe('looking-up');
    expect(named.effects).toContainEqual(expect.objectContaining({ type: 'post', call: 'status', body: { country: 'EG', reference: 'order-1--2' } }));
  });

  it('watches an order the payer left while pending: paid after all, the checkout is paid; paid twice, the payer is told', () => {
    const left = transition(MODELS.waiting, EVENTS.leave(MODELS.waiting)).model;
    expect(left.leftOrders).toEqual(['order-1']);
    const paid = { type: 'left-checked', reference: 'order-1', answer: status({ status: 'SUCCESS' }), at: AT } as MachineEvent;
    const shown = transition(left, paid);
    expect(shown.model.state).toMatchObject({ phase: { kind: 'result', outcome: 'SUCCESS', order: { reference: 'order-1' } }, notice: { kind: 'left-paid' } });
    expect(shown.model.leftOrders).toEqual([]);
    const onPaid = { ...MODELS.result, leftOrders: ['order-0'] };
    const twice = transition(onPaid, { ...paid, reference: 'order-0' } as MachineEvent);
    expect(twice.model.state.notice).toEqual({ kind: 'paid-twice' });
    expect(twice.effects.map(named)).toEqual(['announce']);
    const failed = transition(left, { ...paid, answer: status({ status: 'FAIL' }) } as MachineEvent);
    expect([failed.model.leftOrders, failed.model.state.phase.kind]).toEqual([[], 'form']);
  });

  describe('with the bank account details in an isolated frame', () => {
    const bank = run(form, { type: 'select-method', method: 'BankAccount', at: AT }, { type: 'isolated', report: BANK_FRAME, at: AT }).model;
    const typed: IsolatedReport = { ...BANK_FRAME, broken: {} };

    it('judges the fields by what the frame says, and sends nothing while it says a field is wrong', () => {
      const refused = transition(bank, EVENTS.submit(bank));
      expect(refused.model.state.errors).toEqual({ bankAccountNumber: { rule: 'required' }, bankCode: { rule: 'required' }, dobDay: { rule: 'required' }, dobMonth: { rule: 'required' }, dobYear: { rule: 'required' } });
      expect(refused.effects.map(named)).toEqual(['announce']);
      const oneWrong = run(bank, { type: 'isolated', report: { ...BANK_FRAME, broken: { dobMonth: 'date' } }, edited: 'dobMonth', at: AT }, EVENTS.submit(bank));
      expect(oneWrong.model.state.errors).toEqual({ dobMonth: { rule: 'date' } });
    });

    it('sends the create through the frame, without the fields it holds, once it says they are right', () => {
      const complete = transition(bank, { type: 'isolated', report: typed, edited: 'dobYear', at: AT });
      expect(complete.effects).toContainEqual({ type: 'emit', event: { type: 'change', detail: { payMethod: 'BankAccount', complete: true } } });
      const sent = transition(complete.model, EVENTS.submit(complete.model));
      expect(sent.effects.map(named)).toEqual(['announce', 'post-isolated create']);
      const post = sent.effects[1] as Extract<Effect, { type: 'post-isolated' }>;
      expect(post.body).toMatchObject({ reference: 'order-1', payMethod: 'BankAccount', amount: { total: 12500, currency: 'EGP' }, returnUrl: PAGE });
      for (const field of BANK_FRAME.fields) expect(post.body, field).not.toHaveProperty(field);
      expect(sent.model.state.busy).toBe(true);
      // Its answer is a create's answer: the order, its next step.
      const answered = transition(sent.model, {
        type: 'answer',
        request: post.request,
        answer: { envelope: { code: '00000', message: 'SUCCESSFUL', data: { reference: 'order-1', orderNo: '26112600000010', status: 'PENDING', nextAction: { actionType: 'INPUT_OTP' } } }, orderToken: 'ot1.c.d' },
        at: AT,
      });
      expect(answered.model.state.phase).toMatchObject({ kind: 'action', order: { actionType: 'INPUT_OTP', token: 'ot1.c.d' } });
    });

    it('takes the values typed in the page again once the frame is gone', () => {
      const gone = run(bank, { type: 'isolated', report: undefined, at: AT }, EVENTS.submit(bank));
      expect(gone.model.check?.isolated).toEqual([]);
      expect(Object.keys(gone.model.state.errors).sort()).toEqual([...BANK_FIELDS].sort());
      expect(gone.effects.map(named)).toEqual(['announce']);
    });

    it('clears the service\'s error at a field once the payer changes it in the frame', () => {
      const sent = run(bank, { type: 'isolated', report: typed, edited: 'dobYear', at: AT }, EVENTS.submit(bank));
      const mismatch = transition(sent.model, {
        type: 'answer',
        request: sent.model.request!.id,
        answer: { envelope: { code: '02001', message: 'invalid', data: { errors: [{ field: 'dobDay', rule: 'mismatch', message: 'does not match' }] } } },
        at: AT,
      }).model;
      expect(mismatch.state.errors).toEqual({ dobDay: { rule: 'mismatch' } });
      // Reported without a change of the payer's (the frame attached again): the error stands.
      expect(transition(mismatch, { type: 'isolated', report: typed, at: AT }).model.state.errors).toEqual({ dobDay: { rule: 'mismatch' } });
      const edited = transition(mismatch, { type: 'isolated', report: typed, edited: 'dobDay', at: AT });
      expect(edited.model.state.errors).toEqual({});
      expect(edited.effects.map(named)).toEqual(['change']);
    });
  });

  it('sends a code typed in an isolated frame through it, once the frame says it is one', () => {
    const action = MODELS.action;
    const frame = (broken: IsolatedReport['broken']) => ({ type: 'isolated', report: { fields: ['otp'], broken }, at: AT }) as MachineEvent;
    const wrong = run(action, frame({ otp: 'minLength' }), EVENTS['submit-code'](action));
    expect(wrong.model.state.errors).toEqual({ otp: { rule: 'minLength' } });
    // Nothing sent, and the refusal said aloud, as the kit's would be.
    expect(wrong.effects).toEqual([{ type: 'emit', event: { type: 'announce', detail: { kind: 'form-errors', count: 1 } } }]);
    const right = run(action, frame({}), { type: 'submit-code', code: '', at: AT });
    expect(right.effects).toEqual([{ type: 'post-isolated', request: right.model.request!.id, call: 'otp', body: { country: 'EG', orderNo: '26112600000001' }, orderToken: 'ot1.x.y' }]);
  });

  it('says nothing of a code lost after its order moved past the step (paid meanwhile, its frame gone with the step)', () => {
    const action = MODELS.action;
    const sent = run(action, EVENTS['submit-code'](action)).model;
    const paid = transition(sent, EVENTS['stream-status'](sent)).model;
    expect(paid.state.phase.kind).toBe('result');
    const lost = transition(paid, { type: 'no-answer', request: sent.request!.id, failure: { code: undefined, message: 'the frame went', retryable: true }, at: AT });
    expect(lost.effects).toEqual([]);
    expect(lost.model.state.alert).toBeUndefined();
    expect(lost.model.state.busy).toBe(false);
    // On the step still, it is said.
    expect(transition(sent, { type: 'no-answer', request: sent.request!.id, failure: { code: undefined, message: 'offline', retryable: true }, at: AT }).effects.map(named)).toEqual(['announce', 'error']);
  });

  it('checks the form once per change of what it is built from', () => {
    const validate = vi.mocked(core.validate);
    validate.mockClear();
    let model = form;
    for (const value of ['N', 'N7', 'N78']) model = transition(model, { type: 'input', name: 'sn', value, at: AT }).model;
    expect(validate).toHaveBeenCalledTimes(3);
    model = transition(model, { type: 'blur', name: 'sn', at: AT }).model;
    model = transition(model, { type: 'tick', at: AT }).model;
    expect(validate).toHaveBeenCalledTimes(3);
  });
});

