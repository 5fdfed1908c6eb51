/**
 * The element's events, one row each: the session's event it stands for, its DOM name and its class; its prop in
 * the React wrapper (src/react) is its name's (`reactPropOf`). The wrapper is built from this table and the session's events are dispatched
 * through it (of-session.ts); a session event without a row does not compile. A new event is a row here and a
 * class file beside it (and its `@event` line in the element's JSDoc, which the manifest reads: a test compares them).
 * `timing` is the element's own, not the session's: its controller (controllers/timings.ts) dispatches it.
 */
import type { CheckoutEvent } from '../../checkout/index.js';
import { SvcActionEvent } from './svc-action.js';
import { SvcBeforeRedirectEvent } from './svc-before-redirect.js';
import { SvcChangeEvent } from './svc-change.js';
import { SvcErrorEvent } from './svc-error.js';
import { SvcExpiredEvent } from './svc-expired.js';
import { SvcHttpResponseEvent } from './svc-http-response.js';
import { SvcPayResultEvent } from './svc-pay-result.js';
import { SvcReadyEvent } from './svc-ready.js';
import { SvcTimingEvent } from './svc-timing.js';

/** The session's events that become DOM events (`announce` is spoken by the element's live region), and the element's own. */
export type DomEventType = Exclude<CheckoutEvent['type'], 'announce'> | 'timing';

export interface EventRow<T extends DomEventType = DomEventType> {
  name: `svc-${string}`;
  event: new (detail: never) => Event;
  /** The DOM event's detail, when it is not the session event's own. */
  detailOf?: (event: Extract<CheckoutEvent, { type: T }>) => unknown;
}

export const EVENTS = {
  'http-response': { name: 'svc-http-response', event: SvcHttpResponseEvent },
  'pay-result': { name: 'svc-pay-result', event: SvcPayResultEvent },
  action: { name: 'svc-action', event: SvcActionEvent },
  expired: { name: 'svc-expired', event: SvcExpiredEvent },
  error: { name: 'svc-error', event: SvcErrorEvent },
  ready: { name: 'svc-ready', event: SvcReadyEvent },
  change: { name: 'svc-change', event: SvcChangeEvent },
  'before-redirect': {
    name: 'svc-before-redirect',
    event: SvcBeforeRedirectEvent,
    // The page holds the redirect through the session's own `waitUntil`.
    detailOf: (event) => ({ ...event.detail, waitUntil: (promise: Promise<unknown>) => event.waitUntil(promise) }),
  },
  timing: { name: 'svc-timing', event: SvcTimingEvent },
} as const satisfies { [T in DomEventType]: EventRow<T> };

/** The DOM event of a session event. */
export function domEventOf(event: Extract<CheckoutEvent, { type: Exclude<DomEventType, 'timing'> }>): Event {
  const row = EVENTS[event.type] as EventRow<never>;
  return new row.event((row.detailOf ? row.detailOf(event as never) : event.detail) as never);
}

/** `http-response` → `HttpResponse`. */
type Pascal<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Capitalize<Head>}${Pascal<Tail>}` : Capitalize<S>;

/** An event's prop in the React wrapper, as React users read it: `svc-pay-result` → `onSvcPayResult`. */
export type ReactPropOf<Name extends string> = `on${Pascal<Name>}`;

/** The React wrapper's prop of an event's name (the wrapper's bundle alone carries it, never the element's). */
export function reactPropOf<Name extends string>(name: Name): ReactPropOf<Name> {
  return `on${name.replace(/(^|-)([a-z])/g, (_, __, letter: string) => letter.toUpperCase())}` as ReactPropOf<Name>;
}
