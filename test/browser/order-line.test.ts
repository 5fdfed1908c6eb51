// The header's "Order …" line on a narrow screen (320 and 390 px, English and Arabic): the shop's reference, an
// identifier with hyphens, stays whole on one line — the line breaks before it, never at one of its hyphens (a
// browser's line breaking allows a break after a hyphen-minus).
import { expect, fixture, html } from '@open-wc/testing';
import type { SvcCheckout } from '../../src/element/index.js';
import { checkout, deepQuery, settle, uniqueReference, until } from './support/checkout.js';
import { startStack, type Stack } from './support/stack.js';

/** A checkout for `reference` in a box `width` px wide, its header's reference line once drawn. */
async function placed(stack: Stack, locale: string, width: number, reference: string): Promise<{ element: SvcCheckout; line: HTMLElement }> {
  const box = await fixture<HTMLDivElement>(html`<div style="inline-size: ${width}px"></div>`);
  const element = await checkout(stack, { payMethod: 'Pos', locale, reference });
  box.append(element);
  await settle(element);
  const line = await until('the reference line', () => deepQuery<HTMLElement>(element, '[part=reference]') ?? undefined);
  await until('its reference', () => line.textContent?.includes(reference));
  return { element, line };
}

/** The boxes, one per line, the reference's own characters are drawn in. */
function linesOf(line: HTMLElement, reference: string): number {
  const tops = new Set<number>();
  const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent ?? '';
    const at = text.indexOf(reference);
    if (at < 0) continue;
    const range = document.createRange();
    range.setStart(node, at);
    range.setEnd(node, at + reference.length);
    for (const rect of range.getClientRects()) if (rect.width > 0) tops.add(Math.round(rect.top));
  }
  return tops.size;
}

describe('the header keeps the order reference whole on a narrow screen', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });

  for (const locale of ['en', 'ar-EG']) {
    for (const width of [320, 390]) {
      it(`${locale}, ${width} px: the line breaks before the reference, never at its hyphens`, async () => {
        // A reference long enough that "Order <reference>" needs two lines, short enough to fit on one alone.
        const probeReference = uniqueReference('p');
        const probe = await placed(stack, locale, width, probeReference);
        const room = probe.line.clientWidth;
        const words = probe.line.textContent!.replace(probeReference, '').trim();
        // Text as wide as the line draws it, on one line: a hidden copy of the line beside it, in the same styles.
        const measure = (text: string) => {
          const copy = probe.line.cloneNode() as HTMLElement;
          copy.textContent = text;
          copy.style.cssText = 'position: absolute; visibility: hidden; white-space: nowrap';
          probe.line.after(copy);
          const { width: drawn } = copy.getBoundingClientRect();
          copy.remove();
          return drawn;
        };
        const stamp = Date.now().toString(36).slice(-4);
        // Grown a character at a time until the line no longer holds it after the words: over by less than a
        // character, so the reference alone is narrower than the line by about the words' width.
        const stamped = (text: string) => `${text.replace(/-$/, '')}-${stamp}`;
        let reference = 'ord';
        for (let index = 0; measure(`${words} ${stamped(reference)}`) <= room; index += 1) reference += '-ab'[index % 3];
        reference = stamped(reference);
        expect(measure(reference), 'the reference alone fits the line').to.be.below(room);
        probe.element.remove();
        const { element, line } = await placed(stack, locale, width, reference);
        // Two lines: the words, then the reference whole on its own.
        expect(line.getBoundingClientRect().height).to.be.above(parseFloat(getComputedStyle(line).lineHeight) * 1.5);
        expect(linesOf(line, reference), `${line.textContent} in ${room} px`).to.equal(1);
        // Nothing of it outside the element.
        expect(line.scrollWidth).to.be.at.most(line.clientWidth + 1);
        element.remove();
      });
    }
  }
});
