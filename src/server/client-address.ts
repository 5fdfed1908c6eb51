/**
 * The client's network address, for the per-client limit and the order's `userClientIP`. A Web `Request`
 * does not carry it, so the Node adapter remembers it beside the request it builds; on other runtimes the
 * merchant's `clientAddress` option reads it (a platform header, or a proxy's, when the merchant trusts it).
 */
const addresses = new WeakMap<object, string | (() => string | undefined)>();

/**
 * `request`: the Web Request the adapter built, or its view of Node's request (http.ts, `KitRequest`). The address
 * may be given as a function, read when first needed (most calls never need it).
 */
export function rememberClientAddress(request: object, address: string | (() => string | undefined) | undefined): void {
  if (address) addresses.set(request, address);
}

export function rememberedClientAddress(request: object): string | undefined {
  const remembered = addresses.get(request);
  const address = typeof remembered === 'function' ? remembered() : remembered;
  return address ? address.replace(/^::ffff:/, '') : undefined;
}
