/**
 * Tickets for the isolated frame's bank account create where no checkout token proves it: the shop's `authorize`
 * hook decides its orders (docs/isolated-fields.md). The frame's create carries no cookie, so the page asks the kit
 * first, from its own origin with the payer's session (`POST /payments/ticket`, with the create less the bank
 * details): the kit runs `authorize` then, keeps the order, and answers a ticket the frame shows and sends. A ticket
 * makes one order; one asked for to show the payment is used for the create when nothing changed since.
 */
import { isPlainObject, isSuccess, type Envelope } from '../core/index.js';
import type { EndpointAnswer } from './endpoint-client.js';

/** What the kit answers a ticket request with. */
interface TicketData {
  ticket: string;
  reference: string;
  /** Seconds the ticket is good for. */
  expiresIn: number;
}

/** A ticket asked for is used this long before its end at the latest: the create that carries it must reach the kit. */
const MARGIN_MS = 60_000;

export type TicketAnswer = { ticket: string } | { refusal: EndpointAnswer<unknown> };

export class TicketKeeper {
  readonly #ask: (body: Record<string, unknown>) => Promise<EndpointAnswer<unknown>>;
  readonly #now: () => number;
  /** The last ticket: the body it was asked for, until when it may be sent, and whether a create carried it. */
  #held: { ticket: string; body: string; until: number; used: boolean } | undefined;

  constructor(ask: (body: Record<string, unknown>) => Promise<EndpointAnswer<unknown>>, now: () => number) {
    this.#ask = ask;
    this.#now = now;
  }

  /**
   * A ticket for `body`: the one held, while no create carried it, it is good for a minute more, and it was asked for
   * the same body; else a new one (`fresh`: a new one anyway, the kit having said the last was used). Rejects as the
   * endpoint client does when no answer came; the kit's refusal (the shop's `authorize` refused, a limit) is answered.
   */
  async for(body: Record<string, unknown>, fresh = false): Promise<TicketAnswer> {
    const text = JSON.stringify(body);
    const held = this.#held;
    if (!fresh && held && !held.used && held.body === text && this.#now() < held.until) return { ticket: held.ticket };
    const answer = await this.#ask(body);
    const data = (answer.envelope as Envelope<unknown>).data;
    if (!isSuccess(answer.envelope) || !isPlainObject(data) || typeof data['ticket'] !== 'string') return { refusal: answer };
    const { ticket, expiresIn } = data as unknown as TicketData;
    this.#held = { ticket, body: text, until: this.#now() + Number(expiresIn) * 1000 - MARGIN_MS, used: false };
    return { ticket };
  }

  /** A create carried the ticket held: the next asks for a new one. */
  used(ticket: string): void {
    if (this.#held?.ticket === ticket) this.#held.used = true;
  }
}
