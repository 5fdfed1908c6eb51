/**
 * The two ends of a request's connection, which a Web `Request` does not carry, so the Node adapter remembers them
 * beside the request it builds. The client's address is for the per-client limits and the order's `userClientIP`
 * (on other runtimes the merchant's `clientAddress` option reads it: a platform header, or a proxy's, when the
 * merchant trusts it). The server's own address is where a kit working with a sandbox on the same machine is
 * called back (the kit's default callback URL).
 */
const addresses = new WeakMap<object, string | (() => string | undefined)>();

/**
 * `request`: the Web Request the adapter built, or its view of Node's request (src/server/http/http.ts, `KitRequest`). The address
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

/** IPv6 addresses one client is counted by: a home or an office is given a /64 and picks any address in it. */
export const DEFAULT_IPV6_CLIENT_PREFIX = 64;

/** A key longer than this is no address: it is cut, so that no request makes the limits' keys large. */
const MAX_KEY_LENGTH = 64;

/**
 * What the per-client limits count one client by: an IPv4 address as it is, an IPv6 address by its first
 * `ipv6Prefix` bits (`2001:db8:0:7::/64`), an IPv4-mapped IPv6 address (`::ffff:192.0.2.7`) as its IPv4 address.
 * Every spelling of one address gives one key (leading zeros, `::`, letter case, brackets, a zone). Anything
 * that is not an address (a proxy header read wrongly) counts as its own text, lowercased.
 */
export function clientKeyOf(address: string, ipv6Prefix = DEFAULT_IPV6_CLIENT_PREFIX): string {
  const text = address.trim().toLowerCase();
  const v4 = ipv4Of(text);
  if (v4) return v4.join('.');
  const v6 = ipv6Of(text.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, ''));
  if (!v6) return text.slice(0, MAX_KEY_LENGTH);
  if (v6.slice(0, 5).every((group) => group === 0) && v6[5] === 0xffff) {
    return [v6[6]! >> 8, v6[6]! & 0xff, v6[7]! >> 8, v6[7]! & 0xff].join('.');
  }
  const kept = v6.map((group, index) => {
    const bits = Math.min(16, Math.max(0, ipv6Prefix - index * 16));
    return bits === 0 ? 0 : group & (0xffff << (16 - bits)) & 0xffff;
  });
  return `${kept.map((group) => group.toString(16)).join(':')}/${ipv6Prefix}`;
}

function ipv4Of(text: string): number[] | undefined {
  if (!/^\d{1,3}(?:\.\d{1,3}){3}$/.test(text)) return undefined;
  const parts = text.split('.').map(Number);
  return parts.every((part) => part <= 255) ? parts : undefined;
}

/** The eight 16-bit groups of an IPv6 address (with `::`, and an IPv4 address in its last 32 bits), or undefined. */
function ipv6Of(text: string): number[] | undefined {
  if (!/^[0-9a-f:.]{2,45}$/.test(text)) return undefined;
  let tail: number[] = [];
  let head = text;
  const dotted = /:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(text);
  if (dotted) {
    const v4 = ipv4Of(dotted[1]!);
    if (!v4) return undefined;
    tail = [(v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!];
    // The groups before it: `::ffff:192.0.2.7` leaves `::ffff`, `::192.0.2.7` leaves `::`.
    head = text.slice(0, dotted.index + 1);
    if (!head.endsWith('::')) head = head.slice(0, -1);
  }
  const halves = head.split('::');
  if (halves.length > 2) return undefined;
  const groupsOf = (half: string) => (half === '' ? [] : half.split(':'));
  const left = groupsOf(halves[0]!);
  const right = groupsOf(halves[1] ?? '');
  if (![...left, ...right].every((group) => /^[0-9a-f]{1,4}$/.test(group))) return undefined;
  const given = left.length + right.length + tail.length;
  if (halves.length === 1 ? given !== 8 : given > 7) return undefined;
  const zeros = Array<string>(8 - given).fill('0');
  return [...left, ...(halves.length === 2 ? zeros : []), ...right].map((group) => parseInt(group, 16)).concat(tail);
}

/** The server's end of a connection: the address and port this request reached. */
export interface LocalAddress {
  address: string;
  port: number;
}

const locals = new WeakMap<object, () => LocalAddress | undefined>();

export function rememberLocalAddress(request: object, address: () => LocalAddress | undefined): void {
  locals.set(request, address);
}

/**
 * The origin of the server's end of the connection (`http://127.0.0.1:3000`): undefined when the adapter knows no
 * connection (a Web runtime), null when it knows one without an address (a socket already closed).
 */
export function rememberedLocalOrigin(request: object): string | null | undefined {
  const read = locals.get(request);
  if (!read) return undefined;
  const local = read();
  if (!local?.address || !local.port) return null;
  const host = local.address.replace(/^::ffff:/, '');
  return `http://${host.includes(':') ? `[${host}]` : host}:${local.port}`;
}
