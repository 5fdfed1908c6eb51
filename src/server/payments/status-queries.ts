/**
 * Status queries of one order asked within a moment of each other reach the service once: every tab of a payer,
 * the status stream's own checks and a script that asks 400 times in a second share one query in flight, and its
 * answer for a second after it came. In one process: a second kit process asks for itself (the per-order limit,
 * counted in the shared store, bounds them all).
 *
 * Only an answer that tells the status is kept (a failure is shared by the queries waiting for it, not by those
 * that come after), and news of the order (a verified callback) drops it: sharing never hides a change the kit
 * has heard of.
 */
import { isSuccess, type Envelope, type StatusRequest } from '../../core/index.js';
import { BoundedMap } from '../stores/bounded-map.js';
import { LightAbort, type AbortSignalLike } from '../service/transport.js';

import { STATUS_SHARED_MS } from '../config/handler.js';

/** How long an answer is shared with the queries that come after it, by default (`statusSharedMs`). */
export { STATUS_SHARED_MS };

/** Orders whose latest query is remembered; the least recently asked go first. */
const REMEMBERED_ORDERS = 10_000;

/** Why a query was not sent: a limit of the client that asked refused it. */
export interface Refused<R> {
  refused: R;
}

interface Shared<R> {
  result: Promise<Envelope | Refused<R>> | undefined;
  /** When the answer came; undefined while the query is in flight. */
  answeredAt: number | undefined;
  /** Requests waiting for it: the query is stopped when every one of them has gone. */
  waiting: number;
  abort: LightAbort;
}

export interface SharedStatusQueriesOptions {
  /** One status query to the service; answers an envelope (`50003` when the service cannot be reached). */
  send(query: StatusRequest, signal: AbortSignalLike): Promise<Envelope>;
  now(): number;
  /** How long an answer is shared after it came; 0 shares only a query in flight. Default `STATUS_SHARED_MS`. */
  sharedMs?: number;
  /**
   * `false` where one request's I/O must stay within it (Cloudflare's workerd cancels a request that waits for a
   * query another started): each request then asks for itself, its limits still counted.
   */
  share?: boolean;
}

/** One order, by number or by reference (each unique per merchant, whatever the country). */
export const statusQueryKey = (query: { orderNo?: string | undefined; reference?: string | undefined }): string =>
  query.orderNo !== undefined ? `o:${query.orderNo}` : `r:${query.reference}`;

export class SharedStatusQueries {
  readonly #options: SharedStatusQueriesOptions;
  readonly #queries = new BoundedMap<string, Shared<unknown>>(REMEMBERED_ORDERS);

  constructor(options: SharedStatusQueriesOptions) {
    this.#options = options;
  }

  /**
   * The answer to `query`: the one in flight or just come, or else a new query once `admit` lets it through (the
   * limits of the client that asks; a refusal is answered without a query, and never shared with another client).
   * `inFlightOnly`: a query that keeps its own pace (a stream's check) joins one in flight, never an answer come.
   */
  ask<R>(
    query: StatusRequest,
    signal: AbortSignalLike | undefined,
    admit: () => R | undefined | Promise<R | undefined>,
    inFlightOnly = false,
  ): Promise<Envelope | Refused<R>> {
    const key = statusQueryKey(query);
    const current = this.#options.share === false ? undefined : (this.#queries.get(key) as Shared<R> | undefined);
    if (current && this.#fresh(current) && !(inFlightOnly && current.answeredAt !== undefined)) {
      // A refusal was another client's, by its own limits: this one is judged by its own.
      return this.#wait(current, signal).then((shared) => (isRefused(shared) ? this.#wait(this.#start(key, query, admit), signal) : shared));
    }
    return this.#wait(this.#start(key, query, admit), signal);
  }

  /** The kit heard news of an order: what it shares of it is stale. */
  forget(order: { orderNo: string; reference: string }): void {
    this.#queries.delete(statusQueryKey({ orderNo: order.orderNo }));
    this.#queries.delete(statusQueryKey({ reference: order.reference }));
  }

  #fresh(shared: Shared<unknown>): boolean {
    const sharedMs = this.#options.sharedMs ?? STATUS_SHARED_MS;
    return !shared.abort.aborted && (shared.answeredAt === undefined || this.#options.now() - shared.answeredAt < sharedMs);
  }

  #start<R>(key: string, query: StatusRequest, admit: () => R | undefined | Promise<R | undefined>): Shared<R> {
    const shared: Shared<R> = { result: undefined, answeredAt: undefined, waiting: 0, abort: new LightAbort() };
    // Registered before `admit` answers, so that the queries arriving meanwhile (a Redis round trip) wait for it.
    if (this.#options.share !== false) this.#queries.set(key, shared);
    shared.result = this.#run(key, query, admit, shared);
    return shared;
  }

  async #run<R>(key: string, query: StatusRequest, admit: () => R | undefined | Promise<R | undefined>, shared: Shared<R>): Promise<Envelope | Refused<R>> {
    let kept = false;
    try {
      const refused = await admit();
      if (refused !== undefined) return { refused: refused as R };
      const answer = await this.#options.send(query, shared.abort);
      shared.answeredAt = this.#options.now();
      // A failure is tried again by the next query; an answer cut short because every asker left is nobody's.
      kept = isSuccess(answer) && !shared.abort.aborted;
      return answer;
    } finally {
      if (!kept && this.#queries.get(key) === shared) this.#queries.delete(key);
    }
  }

  /**
   * The query's answer, for one more request; the query is stopped once every request waiting for it has gone.
   * (A listener left on a request that got its answer changes nothing: the query is over.)
   */
  #wait<R>(shared: Shared<R>, signal: AbortSignalLike | undefined): Promise<Envelope | Refused<R>> {
    if (signal?.aborted) return shared.result!;
    shared.waiting += 1;
    signal?.addEventListener(
      'abort',
      () => {
        shared.waiting -= 1;
        if (shared.waiting === 0 && shared.answeredAt === undefined) shared.abort.abort();
      },
      { once: true },
    );
    return shared.result!;
  }
}

export function isRefused<R>(value: Envelope | Refused<R>): value is Refused<R> {
  return 'refused' in value;
}
