/**
 * The draft an action of the checkout machine writes (machine.ts): the model as it goes, and the effects in the order
 * they were asked for; `done()` derives what every transition ends with.
 */
import { checkOf } from './form-check.js';
import type { IsolatedCall } from './isolated.js';
import { isQuiet, type Effect, type MachineEvent, type MachineEventType, type Model, type Next, type Request } from './model.js';
import { orderOf, type ActiveOrder, type Announcement, type CheckoutEvent } from './state.js';

export class Draft {
  m: Model;
  readonly at: number;
  readonly effects: Effect[] = [];

  constructor(model: Model, at: number) {
    this.m = model;
    this.at = at;
  }

  update(patch: Partial<Model>): void {
    this.m = { ...this.m, ...patch };
  }

  set(patch: Partial<Model['state']>): void {
    this.m = { ...this.m, state: { ...this.m.state, ...patch } };
  }

  get order(): ActiveOrder | undefined {
    return orderOf(this.m.state.phase);
  }

  /** The form's check, brought up to date with the model. */
  get check() {
    const check = checkOf(this.m);
    if (check !== this.m.check) this.update({ check });
    return check;
  }

  do(effect: Effect): void {
    this.effects.push(effect);
  }

  emit(event: Exclude<CheckoutEvent, { type: 'before-redirect' }>): void {
    this.do({ type: 'emit', event });
  }

  announce(detail: Announcement): void {
    this.emit({ type: 'announce', detail });
  }

  error(code: string, message: string, retryable: boolean): void {
    this.emit({ type: 'error', detail: { code, message, retryable } });
  }

  /** Starts the request the payer waits on, and asks for its call. */
  request(request: DistributiveOmit<Request, 'id'>, call: Extract<Effect, { type: 'post' }>['call'], body: Record<string, unknown>, orderToken?: string): void {
    const id = this.m.nextRequest;
    this.update({ request: { ...request, id } as Request, nextRequest: id + 1 });
    this.do({ type: 'post', request: id, call, body, ...(orderToken ? { orderToken } : {}) });
  }

  /** The same, for a call the isolated frame completes with the values of its fields and sends. */
  requestIsolated(request: DistributiveOmit<Request, 'id'>, call: IsolatedCall, body: Record<string, unknown>, orderToken?: string): void {
    const id = this.m.nextRequest;
    this.update({ request: { ...request, id } as Request, nextRequest: id + 1 });
    this.do({ type: 'post-isolated', request: id, call, body, ...(orderToken ? { orderToken } : {}) });
  }

  /** What every transition ends with: what is derived from the model, written in this one place. */
  done(): Next {
    const busy = this.m.request !== undefined && !isQuiet(this.m.request);
    const resendWait = this.m.resendAllowedAt > this.at ? Math.ceil((this.m.resendAllowedAt - this.at) / 1000) : 0;
    if (busy !== this.m.state.busy || resendWait !== this.m.state.resendWait) this.set({ busy, resendWait });
    void this.check;
    return { model: this.m, effects: this.effects };
  }
}

export type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type EventOf<T extends MachineEventType> = Extract<MachineEvent, { type: T }>;
