import { ATTRIBUTES, attributeOf } from './config.js';

type Row = (typeof ATTRIBUTES)[number];

/**
 * The wire field of the create request each attribute of the order fills: a column of the attribute table
 * (`ATTRIBUTES`, config.ts), kept here by the attribute's property because only the session reads it and the first
 * frame, which carries the table, does not. An attribute that is not a row, or not of the order, does not compile.
 */
export const ATTRIBUTE_WIRE_FIELDS = {
  merchantName: 'merchantName',
  reference: 'reference',
  countryCode: 'country',
  currency: 'amount.currency',
  payAmount: 'amount.total',
  productName: 'product.name',
  productDescription: 'product.description',
  callbackUrl: 'callbackUrl',
  expireAt: 'expireAt',
  payMethod: 'payMethod',
  returnUrl: 'returnUrl',
} as const satisfies Partial<Record<Row['property'], string>>;

/**
 * Wire fields of the create request the merchant configures rather than the payer types, and the setting each comes
 * from (an attribute, or a property): a violation of one is a configuration error that names the setting.
 */
export const CONFIG_SOURCES: Readonly<Record<string, string>> = {
  ...Object.fromEntries(
    ATTRIBUTES.flatMap((row) => (row.property in ATTRIBUTE_WIRE_FIELDS ? [[ATTRIBUTE_WIRE_FIELDS[row.property as keyof typeof ATTRIBUTE_WIRE_FIELDS], attributeOf(row.property)]] : [])),
  ),
  customerName: 'userInfo.userName',
  userPhone: 'userInfo.userMobile',
  body: 'payParams',
};

/**
 * Settings the host element refused outright (`refused` in CheckoutSettings), and what the configuration error says
 * of each: the session says it, in the `CONFIG` error of the checkout it stops (or, with an order under way, beside it).
 */
export const REFUSED_SETTINGS: ReadonlyMap<string, string> = new Map([
  ['private-key', 'the element never takes a private key: keep it on your server, in the merchant kit'],
]);
