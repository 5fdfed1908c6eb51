/**
 * `svc-checkout/react`: `<svc-checkout>` as a React component, made with @lit/react. Attributes become props
 * (`endpoint`, `merchantId`, `payAmount`, `payParams`, …) and each event of the element's table (EVENTS) a typed
 * `onSvc…` prop.
 */
import { createComponent, type EventName } from '@lit/react';
import * as React from 'react';
import '../element/define.js';
import { EVENTS, reactPropOf, type ReactPropOf } from '../element/events/table.js';
import { SvcCheckout as SvcCheckoutElement } from '../element/svc-checkout.js';

type Rows = (typeof EVENTS)[keyof typeof EVENTS];
/** One prop per row of the table, typed with the row's event class. */
type EventProps = { [Row in Rows as ReactPropOf<Row['name']>]: EventName<InstanceType<Row['event']>> };

const events = Object.fromEntries(Object.values(EVENTS).map((row) => [reactPropOf(row.name), row.name])) as EventProps;

export const SvcCheckout = createComponent({
  tagName: 'svc-checkout',
  elementClass: SvcCheckoutElement,
  react: React,
  displayName: 'SvcCheckout',
  events,
});

export type { SvcCheckoutElement };
export * from '../element/events/index.js';
