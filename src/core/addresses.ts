/**
 * Which addresses the kit (and the sandbox) treat as this machine. Live traffic (the service's base URL, the
 * callback URL) must be `https:`; plain `http:` is only for a service or a shop on the developer's own machine.
 */

/** `localhost` (and names under it), 127.0.0.0/8 and ::1. A name is never resolved: only these count. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (host === '::1' || host === '0:0:0:0:0:0:0:1') return true;
  return /^127(?:\.\d{1,3}){3}$/.test(host) && host.split('.').every((part) => Number(part) <= 255);
}

/** The host name of a URL, or undefined when it is not one. */
export function hostnameOf(url: string): string | undefined {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}

export function isLoopbackUrl(url: string): boolean {
  const host = hostnameOf(url);
  return host !== undefined && isLoopbackHost(host);
}

/** `https:` anywhere, `http:` only on a loopback address. */
export function isLiveAddressAllowed(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol === 'https:') return true;
  return parsed.protocol === 'http:' && isLoopbackHost(parsed.hostname);
}
