/**
 * The callbacks' store contract (src/server/stores/callbacks/port.ts), run against each adapter: memory, and Redis
 * shared by two processes. A notifyId is `new` to its first claim and `busy` to every other while it is handled, however
 * long (the memory store breaks this after one lease: the last case); `done` once its handling completed, for the
 * store's life of a handled id; `new` again once a failed handling released it, or once the lease of a claim left
 * behind ran out. Each id is claimed on its own.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS, CALLBACK_STORES, type CallbackProcesses } from './adapters.js';

/** The shortest lease the Redis adapter takes, and a life for handled ids of two leases. */
const LEASE_MS = 300;
const TTL_MS = 2 * LEASE_MS;

describe.each(ADAPTERS)('the %s callback store', (name) => {
  let stores: CallbackProcesses;
  let serial = 0;
  const notifyId = () => `n-${(serial += 1)}`;
  beforeAll(async () => {
    stores = await CALLBACK_STORES[name]({ leaseMs: LEASE_MS, ttlMs: TTL_MS });
  });

  // What a claim answers after the first, in another process, then in the first (released: the other claim took it).
  it.each([
    ['busy', 'while it is handled', async () => undefined, 'busy'],
    ['done', 'once it was handled', (id: string) => stores.writer.complete(id), 'done'],
    ['new', 'once a failed handling released it', (id: string) => stores.writer.release(id), 'busy'],
  ] as const)('answers new to the first claim, then %s to another process %s', async (other, _then, after, first) => {
    const id = notifyId();
    expect(await stores.writer.claim(id)).toBe('new');
    await after(id);
    expect(await stores.reader.claim(id)).toBe(other);
    expect(await stores.writer.claim(id)).toBe(first);
  });

  it('claims each id on its own', async () => {
    const [first, second] = [notifyId(), notifyId()];
    expect(await stores.writer.claim(first)).toBe('new');
    expect(await stores.reader.claim(second)).toBe('new');
    await stores.writer.complete(first);
    expect(await stores.reader.claim(second)).toBe('busy');
    await stores.reader.release(second);
    expect(await stores.writer.claim(first)).toBe('done');
  });

  it('remembers a handled id beyond a lease and for its life, then answers new again', async () => {
    const id = notifyId();
    expect(await stores.writer.claim(id)).toBe('new');
    await stores.writer.complete(id);
    await stores.pass(LEASE_MS);
    expect(await stores.reader.claim(id)).toBe('done');
    await stores.pass(TTL_MS - LEASE_MS);
    expect(await stores.reader.claim(id)).toBe('new');
  });

  it('takes back a claim left behind, neither completed nor released, once its lease ran out', async () => {
    const id = notifyId();
    await stores.abandon(id);
    expect(await stores.reader.claim(id)).toBe('busy');
    await stores.pass(LEASE_MS);
    expect(await stores.reader.claim(id)).toBe('new');
  });

  // How long a claim outlasts its lease while its handling runs is the adapter's to say (port.ts): Redis renews a
  // claim while its process lives, so a slow handling keeps it and a dead process's runs out within the lease; in
  // memory (one process, which cannot tell a slow handling from one that never ends) the lease bounds a handling.
  it(name === 'memory' ? 'takes a handling that runs past its lease as abandoned' : 'keeps a claim busy while its process lives, beyond its lease', async () => {
    const id = notifyId();
    expect(await stores.writer.claim(id)).toBe('new');
    await stores.pass(LEASE_MS + LEASE_MS / 2);
    expect(await stores.reader.claim(id)).toBe(name === 'memory' ? 'new' : 'busy');
    await stores.writer.complete(id);
  });
});
