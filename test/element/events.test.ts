/**
 * The element's events come from one table (src/element/events/table.ts): each row's class dispatches its name as
 * the page expects it, the element's documentation (the manifest, from its JSDoc) lists exactly the table's events,
 * and the React wrapper has a typed prop for every row.
 */
import { readFile } from 'node:fs/promises';
import type { ComponentProps } from 'react';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { EVENTS, reactPropOf, type ReactPropOf } from '../../src/element/events/table.js';
import type { SvcBeforeRedirectEvent, SvcPayResultEvent } from '../../src/element/events/index.js';
import type { SvcCheckout } from '../../src/react/index.js';
// @ts-expect-error a plain JavaScript module without types
import { assertDistFresh } from '../../scripts/dist-is-fresh.mjs';

const rows = Object.entries(EVENTS);

describe('the events table', () => {
  it("dispatches each row's name, bubbling out of the shadow root; only before-redirect can be cancelled", () => {
    for (const [type, row] of rows) {
      const event = new row.event({} as never);
      expect(event.type, type).toBe(row.name);
      expect(event.bubbles && event.composed, type).toBe(true);
      expect(event.cancelable, type).toBe(type === 'before-redirect');
    }
  });

  it('names each React prop after its event, as React users read them', () => {
    expect(rows.map(([, row]) => reactPropOf(row.name))).toEqual([
      'onSvcHttpResponse',
      'onSvcPayResult',
      'onSvcAction',
      'onSvcExpired',
      'onSvcError',
      'onSvcReady',
      'onSvcChange',
      'onSvcBeforeRedirect',
      'onSvcTiming',
    ]);
    expectTypeOf<ReactPropOf<'svc-before-redirect'>>().toEqualTypeOf<'onSvcBeforeRedirect'>();
  });

  it("is what the element's documentation lists (custom-elements.json, from its @event lines)", async () => {
    await assertDistFresh();
    const manifest = JSON.parse(await readFile(new URL('../../dist/custom-elements.json', import.meta.url), 'utf8'));
    const element = manifest.modules.flatMap((module: { declarations?: unknown[] }) => module.declarations ?? []).find((item: { tagName?: string }) => item.tagName === 'svc-checkout');
    expect(element.events.map((event: { name: string }) => event.name).sort()).toEqual(rows.map(([, row]) => row.name).sort());
  });

  it('gives the React wrapper a typed prop per row, before-redirect too', () => {
    type Props = ComponentProps<typeof SvcCheckout>;
    // Every row's prop, from the table (none missing), each typed with its row's event class.
    type Prop<K extends keyof typeof EVENTS> = ReactPropOf<(typeof EVENTS)[K]['name']>;
    expectTypeOf<Exclude<Prop<keyof typeof EVENTS>, keyof Props>>().toEqualTypeOf<never>();
    expectTypeOf<{ [K in keyof typeof EVENTS as Prop<K>]: InstanceType<(typeof EVENTS)[K]['event']> }>().toMatchTypeOf<{
      [K in keyof typeof EVENTS as Prop<K>]: Parameters<NonNullable<Props[Prop<K> & keyof Props]>>[0];
    }>();
    expectTypeOf<NonNullable<Props['onSvcBeforeRedirect']>>().parameter(0).toEqualTypeOf<SvcBeforeRedirectEvent>();
    expectTypeOf<NonNullable<Props['onSvcPayResult']>>().parameter(0).toEqualTypeOf<SvcPayResultEvent>();
  });
});
