/**
 * Wire fields of the create request the merchant configures rather than the payer types, and the setting each comes
 * from (an attribute of config.ts's table, or a property): a violation of one is a configuration error that names
 * the setting. Apart from the attributes, since only the session reads it and the first frame does not carry it.
 */
export const CONFIG_SOURCES: Readonly<Record<string, string>> = {
  merchantName: 'merchant-name',
  reference: 'reference',
  country: 'country-code',
  'amount.currency': 'currency',
  'amount.total': 'pay-amount',
  'product.name': 'product-name',
  'product.description': 'product-description',
  callbackUrl: 'callback-url',
  expireAt: 'expire-at',
  payMethod: 'pay-method',
  returnUrl: 'return-url',
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
