/**
 * The ticket store's contract (src/server/stores/tickets/port.ts), run against each adapter: memory, and Redis shared by
 * two connections as two kit processes share it. An order kept for a ticket is read by any process until it is taken
 * or its time is up, and taken once: of creates that race for it, one gets it.
 */
import { describe, expect, it } from 'vitest';
import { ADAPTERS, TICKET_STORES } from './adapters.js';

const ORDER = JSON.stringify({ payMethod: 'BankAccount', reference: 'cart-42', amount: { total: 12_500, currency: 'EGP' } });
let ids = 0;
/** A ticket id of its own for each case (22 base64url characters, as the kit draws them). */
const freshId = () => `contract-${String((ids += 1)).padStart(4, '0')}-abcdefghi`.slice(0, 22);

describe.each(ADAPTERS)('the %s ticket store', (adapter) => {
  it('keeps an order that another process reads, until it is taken', async () => {
    const { writer, reader } = await TICKET_STORES[adapter]();
    const id = freshId();
    await writer.keep(id, ORDER, 60_000);
    expect(await reader.read(id)).toBe(ORDER);
    expect(await reader.read(id)).toBe(ORDER);
    expect(await reader.take(id)).toBe(ORDER);
    expect(await writer.read(id)).toBeUndefined();
    expect(await writer.take(id)).toBeUndefined();
  });

  it('gives an order to one of the creates that race for it, and to none after', async () => {
    const { writer, reader } = await TICKET_STORES[adapter]();
    const id = freshId();
    await writer.keep(id, ORDER, 60_000);
    const taken = await Promise.all(Array.from({ length: 20 }, (_, index) => (index % 2 ? reader : writer).take(id)));
    expect(taken.filter((order) => order === ORDER)).toHaveLength(1);
    expect(taken.filter((order) => order === undefined)).toHaveLength(19);
  });

  it('forgets an order once its time is up, and knows none it never kept', async () => {
    const { writer, reader, pass } = await TICKET_STORES[adapter]();
    const id = freshId();
    await writer.keep(id, ORDER, 200);
    expect(await reader.read(id)).toBe(ORDER);
    await pass(250);
    expect(await reader.read(id)).toBeUndefined();
    expect(await reader.take(id)).toBeUndefined();
    expect(await reader.take(freshId())).toBeUndefined();
  });

  it('keeps each ticket apart: taking one leaves the others', async () => {
    const { writer, reader } = await TICKET_STORES[adapter]();
    const [first, second] = [freshId(), freshId()];
    await writer.keep(first, ORDER, 60_000);
    await writer.keep(second, `${ORDER} `, 60_000);
    expect(await reader.take(first)).toBe(ORDER);
    expect(await reader.read(second)).toBe(`${ORDER} `);
  });
});
