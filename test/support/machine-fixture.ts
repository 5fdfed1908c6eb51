/**
 * The checkout machine's models, made by the machine itself from a configuration (test/checkout/machine.test.ts, the
 * machine as a table; test/element/context.test.ts, what a shop's own elements read of it): one shop, one page, one
 * moment, and the events that configure it.
 */
import { resolveConfig, type CheckoutSettings, type SavedCheckout } from '../../src/checkout/index.js';
import { IDLE_STATE } from '../../src/checkout/first-frame.js';
import { transition } from '../../src/checkout/machine.js';
import { initialModel, type Effect, type MachineEvent, type Model } from '../../src/checkout/model.js';
import { storageKeyOf } from '../../src/checkout/storage.js';

export const AT = Date.UTC(2026, 10, 26, 12);
export const PAGE = 'https://shop.example/pay';
export const SETTINGS: CheckoutSettings = {
  endpoint: 'https://shop.example/checkout',
  merchantId: '256612345678901',
  merchantName: 'Nile Coffee',
  reference: 'order-1',
  countryCode: 'EG',
  currency: 'EGP',
  payAmount: 12500,
  productName: 'Coffee',
  productDescription: 'Beans',
};

/** The page's configuration of the machine, with what a reload found kept (`saved`). */
export function configure(settings: CheckoutSettings, saved?: SavedCheckout): MachineEvent {
  const { config, problem } = resolveConfig(settings, undefined, undefined, () => undefined);
  return { type: 'configure', settings, config, problem, key: storageKeyOf(config, PAGE), saved, pageUrl: PAGE, nonce: 'n0', at: AT };
}

/** Runs events through the machine from a model, keeping the last transition's effects. */
export function run(model: Model, ...events: MachineEvent[]): { model: Model; effects: readonly Effect[] } {
  let next = { model, effects: [] as readonly Effect[] };
  for (const event of events) next = transition(next.model, event);
  return next;
}

export const idle = initialModel(IDLE_STATE);

/** What a reload finds kept of checkout `order-1` at its first attempt. */
export const saving = (saved: Omit<SavedCheckout, 'version' | 'base' | 'attempt'>): SavedCheckout => ({ version: 1, base: 'order-1', attempt: 1, ...saved });
