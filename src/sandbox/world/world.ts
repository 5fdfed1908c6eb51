/**
 * The sandbox's world: its merchants and test values, its clock, the orders and refunds, the messages sent to
 * payers, the callbacks and their deliveries, and what the control API queued (faults, delivery faults,
 * expectations), each change told as an event that carries what changed. No HTTP here, and no views: the
 * routes of each job act on the world, and the control API says how what it keeps is shown.
 */
import { CallbackDispatcher } from '../callbacks/dispatcher.js';
import { SandboxClock } from './clock.js';
import { DEFAULT_MERCHANT, resolveMerchant, SandboxConfigError, type ResolvedMerchant, type SandboxMerchant } from '../config.js';
import { DeliveryFaultQueue } from '../faults/delivery-faults.js';
import { EventHub } from './events.js';
import { LinkBook } from './links.js';
import { ExpectationBook } from '../scenarios/expectations.js';
import { FaultQueue } from '../faults/service-faults.js';
import { Outbox } from './notifications.js';
import { OrderBook } from './orders.js';
import type { SavedState } from './persistence.js';
import { readSandboxFile, type ScenariosInput } from '../scenarios/scenario-file.js';
import type { Scenarios } from '../scenarios/test-values.js';

export interface SandboxWorld {
  book: OrderBook;
  dispatcher: CallbackDispatcher;
  outbox: Outbox;
  faults: FaultQueue;
  deliveryFaults: DeliveryFaultQueue;
  expectations: ExpectationBook;
  /** The payment links the shop's kit made beside this sandbox, as it was told of them. */
  links: LinkBook;
  clock: SandboxClock;
  merchants: ReadonlyMap<string, ResolvedMerchant>;
  scenarios: Scenarios;
  events: EventHub;
  /** Applies everything due on the sandbox clock: expiries, expectations, refunds, callbacks. */
  tick(): void;
}

/** What the world is made of: `SandboxOptions`' part of it (../server.ts documents each). */
export interface WorldOptions {
  merchants?: readonly SandboxMerchant[] | undefined;
  merchantId?: string | undefined;
  privateKey?: string | undefined;
  publicKey?: string | undefined;
  webhookUrl?: string | undefined;
  merchantName?: string | undefined;
  scenarios?: ScenariosInput | undefined;
  callbackTimeoutMs?: number | undefined;
  allowRemoteCallbacks?: boolean | undefined;
}

export function createWorld(options: WorldOptions): SandboxWorld {
  let file;
  try {
    file = readSandboxFile(options.scenarios ?? {});
  } catch (error) {
    if (error instanceof SandboxConfigError) throw new SandboxConfigError(`scenarios: ${error.message}`, error.path);
    throw error;
  }
  const scenarios = file.scenarios;
  const merchantsById = new Map(merchantsOf(options, file.merchants).map((merchant) => [merchant.merchantId, merchant]));
  const clock = new SandboxClock();
  const events = new EventHub(() => clock.now());
  const book = new OrderBook(clock, scenarios);
  const deliveryFaults = new DeliveryFaultQueue();
  const dispatcher = new CallbackDispatcher({
    clock,
    merchant: (merchantId) => merchantsById.get(merchantId),
    faults: deliveryFaults,
    ...(options.callbackTimeoutMs ? { timeoutMs: options.callbackTimeoutMs } : {}),
    allowRemoteCallbacks: options.allowRemoteCallbacks ?? false,
  });
  const outbox = new Outbox();
  const faults = new FaultQueue();
  const expectations = new ExpectationBook(clock);

  book.onChange((order) => {
    const merchant = merchantsById.get(order.merchantId);
    if (merchant) dispatcher.enqueue(order, merchant);
    if (order.plan) expectations.done(order.plan.expectationId, `order ${order.orderNo} ended ${order.status}`);
    queueMicrotask(() => dispatcher.deliverDue());
  });
  book.onUpdate((order) => events.publish('order', () => order));
  book.onRefund((refund) => {
    if (refund.expectationId && (refund.orderStatus === 'SUCCESS' || refund.orderStatus === 'FAIL')) {
      expectations.done(refund.expectationId, `refund ${refund.reference} ended ${refund.orderStatus}`);
    }
    events.publish('refund', () => refund);
  });
  outbox.onSent((message) => events.publish('message', () => message));
  dispatcher.onChange((notifyId) => events.publish('delivery', () => dispatcher.delivery(notifyId)));
  faults.onChange(() => events.publish('faults', () => faults.list()));
  deliveryFaults.onChange(() => events.publish('deliveryFaults', () => deliveryFaults.list()));
  expectations.onChange(() => events.publish('expectations', () => expectations.list()));
  const links = new LinkBook();
  links.onChange(() => events.publish('links', () => links.list()));

  return {
    book,
    dispatcher,
    outbox,
    faults,
    deliveryFaults,
    expectations,
    links,
    clock,
    merchants: merchantsById,
    scenarios,
    events,
    tick() {
      book.settleDue();
      dispatcher.deliverDue();
    },
  };
}

function merchantsOf(options: WorldOptions, fromScenarios: ResolvedMerchant[] | undefined): ResolvedMerchant[] {
  if ((!options.merchants || options.merchants.length === 0) && fromScenarios) return fromScenarios;
  if (options.merchants && options.merchants.length > 0) {
    const merchants = options.merchants.map((merchant, index) => resolveMerchant(merchant, `merchants[${index}]`));
    if (new Set(merchants.map((merchant) => merchant.merchantId)).size !== merchants.length) {
      throw new SandboxConfigError('merchants: a merchantId appears twice');
    }
    return merchants;
  }
  const single = {
    ...DEFAULT_MERCHANT,
    ...(options.merchantId ? { merchantId: options.merchantId } : {}),
    ...(options.privateKey ? { privateKey: options.privateKey } : {}),
    ...(options.publicKey ? { publicKey: options.publicKey } : {}),
    ...(options.webhookUrl ? { webhookUrl: options.webhookUrl } : {}),
    ...(options.merchantName ? { name: options.merchantName } : {}),
  };
  return [resolveMerchant(single, 'merchant')];
}

/** What a data file keeps of the world. */
export function worldData(world: SandboxWorld): SavedState {
  return {
    clockOffsetMs: world.clock.offsetMs,
    book: world.book.toData(),
    outbox: world.outbox.toData(),
    dispatcher: world.dispatcher.toData(),
    faults: world.faults.toData(),
    deliveryFaults: world.deliveryFaults.toData(),
    expectations: world.expectations.toData(),
  };
}

export function restoreWorld(world: SandboxWorld, data: SavedState): void {
  world.clock.restore(data.clockOffsetMs);
  world.book.restore(data.book);
  world.outbox.restore(data.outbox);
  world.dispatcher.restore(data.dispatcher);
  world.faults.restore(data.faults);
  world.deliveryFaults.restore(data.deliveryFaults);
  world.expectations.restore(data.expectations);
}
