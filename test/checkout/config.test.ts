// The element's attribute table and the table of which setting each configured wire field comes from
// (src/checkout/config.ts, src/checkout/config-sources.ts): kept apart for the first frame's sake, they agree.
import { describe, expect, it } from 'vitest';
import { ATTRIBUTES, attributeOf, CONFIG_SOURCES } from '../../src/checkout/index.js';
import { validateCreateRequest } from '../../src/core/index.js';

describe('the sources of configured wire fields', () => {
  it('name an attribute of the element, a field of userInfo, or payParams', () => {
    const attributes = new Set<string>(ATTRIBUTES.map((row) => attributeOf(row.property)));
    for (const [wire, setting] of Object.entries(CONFIG_SOURCES)) {
      expect(attributes.has(setting) || /^userInfo\.\w+$/.test(setting) || setting === 'payParams', `${wire} → ${setting}`).toBe(true);
    }
  });

  it('cover every attribute of the order that fills a wire field', () => {
    const named = new Set(Object.values(CONFIG_SOURCES));
    const fills = ['merchant-name', 'reference', 'country-code', 'currency', 'pay-amount', 'product-name', 'product-description', 'callback-url', 'expire-at', 'pay-method', 'return-url'];
    for (const attribute of fills) expect(named.has(attribute), attribute).toBe(true);
  });

  it('are wire fields the validator names', () => {
    const result = validateCreateRequest({ payMethod: 'ReferenceCode' });
    expect(result.ok).toBe(false);
    const named = new Set(result.ok ? [] : result.violations.map((violation) => violation.field));
    for (const wire of ['reference', 'amount.currency', 'amount.total', 'product.name']) {
      expect(named.has(wire), wire).toBe(true);
      expect(CONFIG_SOURCES[wire], wire).toBeDefined();
    }
  });
});
