// The context a shop's own elements read (src/element/context.ts): the phase and the order's public facts, never a
// payer's secret — not the terminal number typed for a POS payment, whether in the order or in the create under way
// (the form's `creating`), nor a bank account's last characters, nor the token of the order's own calls.
import { describe, expect, it } from 'vitest';
import { placeOf } from '../../src/checkout/machine.js';
import type { Model } from '../../src/checkout/model.js';
import { contextValueOf } from '../../src/element/context.js';
import { AT, configure, idle, run, saving, SETTINGS } from '../support/machine-fixture.js';

const SN = 'N78101818218';

const typed = run(idle, configure(SETTINGS), { type: 'input', name: 'sn', value: SN, at: AT }).model;

describe('the context a shop sees', () => {
  const places: [string, Model][] = [
    ['the form, its create under way', run(typed, { type: 'submit', at: AT }).model],
    ['the search for a create kept across a reload', run(idle, configure(SETTINGS, saving({ creating: { reference: 'order-1', payMethod: 'Pos', known: { sn: SN, actionType: 'SWIPE_CARD' } } }))).model],
    [
      "a POS order's step",
      run(idle, configure(SETTINGS, saving({ order: { reference: 'order-1', orderNo: '26112800000001', payMethod: 'Pos', status: 'PENDING', country: 'EG', sn: SN, actionType: 'SWIPE_CARD', token: 'ot1.x.y' } }))).model,
    ],
  ];

  for (const [name, model] of places) {
    it(`carries no terminal number and no token: ${name}`, () => {
      // The session's own state has them (it sends and shows them): the context does not.
      expect(JSON.stringify(model.state.phase)).toContain(SN);
      const value = contextValueOf(model.state);
      expect(value.phase.kind).toBe(model.state.phase.kind);
      expect(JSON.stringify(value)).not.toContain(SN);
      expect(JSON.stringify(value)).not.toContain('ot1.x.y');
      expect(value.phase).not.toHaveProperty('creating');
    });
  }

  it("carries no bank account's last characters, which the kit noted of another page's payment", () => {
    const ENDING = '1176';
    const order = { reference: 'order-1', orderNo: '26112800000002', payMethod: 'BankAccount', status: 'PENDING', country: 'EG', accountEnding: ENDING } as const;
    const { model } = run(idle, configure(SETTINGS, saving({ order })));
    expect(JSON.stringify(model.state.phase)).toContain(ENDING);
    const value = contextValueOf(model.state);
    expect(value.phase).toMatchObject({ order: { orderNo: '26112800000002' } });
    expect(JSON.stringify(value)).not.toContain(ENDING);
  });

  it('keeps the order\'s public facts', () => {
    const [, , [, step]] = places as [unknown, unknown, [string, Model]];
    expect(placeOf(step.state.phase)).toBe('action');
    expect(contextValueOf(step.state).phase).toMatchObject({ kind: 'action', order: { reference: 'order-1', orderNo: '26112800000001', actionType: 'SWIPE_CARD', status: 'PENDING' } });
  });
});
