// The element's attribute table and the table of which setting each configured wire field comes from
// (src/checkout/config.ts, src/checkout/config-sources.ts): kept apart for the first frame's sake, they agree.
import { describe, expect, it } from 'vitest';
import { ATTRIBUTES, attributeOf, CONFIG_SOURCES } from '../../src/checkout/index.js';
import { ATTRIBUTE_WIRE_FIELDS } from '../../src/checkout/config-sources.js';
import { validateCreateRequest } from '../../src/core/index.js';

describe('the sources of configured wire fields', () => {
  it('name an attribute of the element, a field of userInfo, or payParams', () => {
    const attributes = new Set<string>(ATTRIBUTES.map((row) => attributeOf(row.property)));
    for (const [wire, setting] of Object.entries(CONFIG_SOURCES)) {
      expect(attributes.has(setting) || /^userInfo\.\w+$/.test(setting) || setting === 'payParams', `${wire} → ${setting}`).toBe(true);
    }
  });

  it('cover every attribute that fills a wire field (the table\'s wire column), each at its own wire field', () => {
    expect(Object.keys(ATTRIBUTE_WIRE_FIELDS).length).toBeGreaterThan(0);
    for (const [property, wire] of Object.entries(ATTRIBUTE_WIRE_FIELDS)) {
      expect(ATTRIBUTES.some((row) => row.property === property), property).toBe(true);
      expect(CONFIG_SOURCES[wire], `${property} → ${wire}`).toBe(attributeOf(property as keyof typeof ATTRIBUTE_WIRE_FIELDS));
    }
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
