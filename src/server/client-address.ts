/**
 * The client's network address, for the per-client limit and the order's `userClientIP`. A Web `Request`
 * does not carry it, so the Node adapter remembers it beside the request it builds; on other runtimes the
 * merchant's `clientAddress` option reads it (a platform header, or a proxy's, when the merchant trusts it).
 */
const addresses = new WeakMap<object, string>();

/** `request`: the Web Request the adapter built, or its view of Node's request (http.ts, `KitRequest`). */
export function rememberClientAddress(request: object, address: string | undefined): void {
  if (address) addresses.set(request, address.replace(/^::ffff:/, ''));
}

export function rememberedClientAddress(request: object): string | undefined {
  return addresses.get(request);
}
