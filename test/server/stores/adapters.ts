/**
 * Each store port's adapters, for the contract tests beside this file: memory, and Redis as two kit processes share it
 * (two connections from connectRedis to one real redis-server). A contract file states its port's promises once, and
 * runs them against every adapter of the port here, each as a writer and a reader: the one memory store, or two
 * processes' connections to Redis. Time passes through the memory stores' own clock (`now`), and through real time
 * for Redis, which has no clock to inject.
 */
import { afterAll } from 'vitest';
import { MemoryCallbackStore, MemoryThrottleStore } from '../../../src/server/index.js';
import { connectRedis, type RedisKit, type RedisKitOptions } from '../../../src/server/redis/connect.js';
import type { CallbackStore } from '../../../src/server/stores/callbacks/port.js';
import { MemoryReconciliationStore } from '../../../src/server/stores/reconciliation/memory.js';
import type { ReconciliationStore } from '../../../src/server/stores/reconciliation/port.js';
import { MemoryStatusBus } from '../../../src/server/stores/status-bus/memory.js';
import type { StatusBus, StatusUpdate } from '../../../src/server/stores/status-bus/port.js';
import type { ThrottleStore } from '../../../src/server/stores/throttle/port.js';
import { MemoryTicketStore } from '../../../src/server/stores/tickets/memory.js';
import type { TicketStore } from '../../../src/server/stores/tickets/port.js';
import { FakeClock } from '../../support/fake-clock.js';
import { startRedis, type TestRedis } from '../../support/redis-server.js';
import { eventually } from '../../support/sandbox-fixture.js';

/** The adapters every port has. */
export const ADAPTERS = ['memory', 'redis'] as const;
export type Adapter = (typeof ADAPTERS)[number];

/** A port's state as the process that writes sees it, and as another process reads it. */
export interface Processes<S> {
  writer: S;
  /** Another process's view of the same state: for memory, the one process's own store again. */
  reader: S;
}

/** Processes whose store keeps time: `pass(ms)` lets that much of it go by (the fake clock, or real time for Redis). */
export interface Timed<S> extends Processes<S> {
  pass(ms: number): Promise<void>;
}

/** A third process sharing the state, that can stop for good (as a killed process does): shared adapters only. */
export interface Mortal<S> {
  store: S;
  /** Stops it: its renewals stop, and it gives nothing back. */
  die(): Promise<void>;
}

// One redis-server per test file (each file runs in its own module graph), started when a Redis adapter first needs it.
let server: Promise<TestRedis> | undefined;
const kits: RedisKit[] = [];
let prefixes = 0;

afterAll(async () => {
  await Promise.all(kits.splice(0).map((kit) => kit.close()));
  await (await server)?.close();
});

/** A kit process connected to the file's Redis, closed after the file. */
async function kitProcess(options: RedisKitOptions): Promise<RedisKit> {
  server ??= startRedis();
  const kit = await connectRedis({ url: (await server).url, logger: { warn() {}, error() {} }, ...options });
  kits.push(kit);
  return kit;
}

/** Stops a kit process for good, as a killed one stops: its renewals stop, and it gives nothing back. */
async function die(kit: RedisKit): Promise<void> {
  // Closed here, not again after the file: a kit's second close never settles.
  const index = kits.indexOf(kit);
  if (index >= 0) kits.splice(index, 1);
  await kit.close();
}

/** Two kit processes sharing fresh state (a key prefix of their own), and the means to start a third on it. */
async function processes(options: RedisKitOptions = {}) {
  const shared = { ...options, keyPrefix: `contract${(prefixes += 1)}:` };
  const [one, two] = [await kitProcess(shared), await kitProcess(shared)];
  return { one, two, another: () => kitProcess(shared) };
}

const realTime = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms + 30));

/** A memory store's clock, moved by `pass`. */
function memoryClock() {
  const clock = new FakeClock({ startAt: 1_000_000 });
  return { now: clock.now, pass: (ms: number) => clock.advance(ms) };
}

/** The callbacks' stores, with a lease and a life for handled ids. */
export interface CallbackProcesses extends Timed<CallbackStore> {
  /**
   * Claims `id` for a handling that will never complete nor release it: in Redis a process that then dies; in memory
   * (where a process that dies takes the store with it) a handling that never ends.
   */
  abandon(id: string): Promise<void>;
}

export const CALLBACK_STORES: Record<Adapter, (options: { leaseMs: number; ttlMs: number }) => Promise<CallbackProcesses>> = {
  memory: async (options) => {
    const { now, pass } = memoryClock();
    const store = new MemoryCallbackStore({ ...options, now });
    return { writer: store, reader: store, pass, abandon: async (id) => void store.claim(id) };
  },
  redis: async (options) => {
    const { one, two, another } = await processes(options);
    const abandon = async (id: string) => {
      const doomed = await another();
      await doomed.callbackStore.claim(id);
      await die(doomed);
    };
    return { writer: one.callbackStore, reader: two.callbackStore, pass: realTime, abandon };
  },
};

/** The throttle's stores; `another` only where processes share the places (the lease of a process that died). */
export interface ThrottleProcesses extends Timed<ThrottleStore> {
  another?(): Promise<Mortal<ThrottleStore>>;
}

export const THROTTLE_STORES: Record<Adapter, (options: { openLeaseMs: number }) => Promise<ThrottleProcesses>> = {
  memory: async () => {
    const { now, pass } = memoryClock();
    const store = new MemoryThrottleStore({ now });
    return { writer: store, reader: store, pass };
  },
  redis: async (options) => {
    const { one, two, another } = await processes(options);
    return {
      writer: one.throttleStore,
      reader: two.throttleStore,
      pass: realTime,
      another: async () => {
        const kit = await another();
        return { store: kit.throttleStore, die: () => die(kit) };
      },
    };
  },
};

/** The orders kept for tickets, each with its clock (a ticket's order lives as long as it was kept for). */
export const TICKET_STORES: Record<Adapter, () => Promise<Timed<TicketStore>>> = {
  memory: async () => {
    const { now, pass } = memoryClock();
    const store = new MemoryTicketStore({ now });
    return { writer: store, reader: store, pass };
  },
  redis: async () => {
    const { one, two } = await processes();
    return { writer: one.ticketStore, reader: two.ticketStore, pass: realTime };
  },
};

/** Fresh orders to reconcile for each test (a sweep takes whatever is due in the whole store). */
export const RECONCILIATION_STORES: Record<Adapter, (options: { maxOrders: number }) => Promise<Processes<ReconciliationStore>>> = {
  memory: async (options) => {
    const store = new MemoryReconciliationStore(options);
    return { writer: store, reader: store };
  },
  redis: async (options) => {
    const { one, two } = await processes(options);
    return { writer: one.reconciliationStore, reader: two.reconciliationStore };
  },
};

/** What one listener heard, and the function that stops it listening. */
export interface Heard {
  updates: StatusUpdate[];
  stop(): void;
}

/** Status buses, each as the publishing process and another. */
export interface BusProcesses extends Processes<StatusBus> {
  /** Resolves once everything published so far has reached every process's listeners (at once in memory). */
  delivered(): Promise<void>;
}

const FENCE = 'fence';

/** An update that marks a point in the bus's stream: whatever was published before it reached a process first. */
const fence = (reference: string): StatusUpdate => ({ orderNo: FENCE, reference, status: 'PENDING', source: 'query', at: 0 });

/** A listener on `bus` that keeps what the test published (fences aside). */
export function listen(bus: StatusBus): Heard {
  const updates: StatusUpdate[] = [];
  const stop = bus.subscribe({ update: (update) => void (update.orderNo !== FENCE && updates.push(update)) });
  return { updates, stop };
}

export const STATUS_BUSES: Record<Adapter, () => Promise<BusProcesses>> = {
  memory: async () => {
    const bus = new MemoryStatusBus();
    return { writer: bus, reader: bus, delivered: async () => undefined };
  },
  redis: async () => {
    const { one, two } = await processes();
    let fences = 0;
    /**
     * Redis brings a channel's messages to each subscriber in the order they were published: once each process has
     * heard a fence published by the other after everything else, it has heard everything else.
     */
    const delivered = async () => {
      fences += 1;
      const buses = [one.statusBus, two.statusBus];
      // Each process waits for the fence the other published: its own it heard at once, without Redis.
      const reached = buses.map((bus, index) => {
        let heard = false;
        const awaited = `${fences}:${1 - index}`;
        const stop = bus.subscribe({ update: (update) => void (update.reference === awaited && (heard = true)) });
        return { heard: () => heard, stop };
      });
      await Promise.all(buses.map((bus, index) => bus.publish(fence(`${fences}:${index}`))));
      await eventually("every process heard the other's fence", () => reached.every(({ heard }) => heard()), 2_000);
      for (const { stop } of reached) stop();
    };
    return { writer: one.statusBus, reader: two.statusBus, delivered };
  },
};
