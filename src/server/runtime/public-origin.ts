/**
 * The origins the kit names itself by in what it writes for a request: the isolated frame's `connect-src`, and against
 * the sandbox its own callback address. Whoever sends a request writes its `Host` and `X-Forwarded-*`, and a shared
 * cache that ignores them would keep what they made for everyone; so the kit takes its origin, in this order, from:
 *
 * 1. `publicOrigin`, when the shop gives it;
 * 2. the proxy's `X-Forwarded-Proto` and `X-Forwarded-Host` (else `Host`), only when the shop says it stands behind
 *    one that sets them (`trustProxy`);
 * 3. what the shop configures already: the origin of `callbackUrl`, and `returnUrlOrigins`;
 * 4. its own socket, when that is a loopback address (a developer's machine): `http://localhost:<port>` and the
 *    socket's own address at that port;
 * 5. nothing: the frame's policy says `'self'` alone (enough in Chromium and Firefox, not in WebKit).
 */
import { isLoopbackHost } from '../../core/addresses.js';
import { rememberedLocalOrigin } from './client-address.js';

/** What the configuration says of the kit's origin (src/server/config/handler.ts resolves it). */
export interface PublicOriginConfig {
  readonly publicOrigins: readonly string[];
  readonly publicOriginGiven: boolean;
  readonly trustProxy: boolean;
}

/** The parts of a request read here: its URL (a runtime builds it from `Host`) and its headers. */
interface RequestLike {
  readonly url: string;
  readonly headers: { get(name: string): string | null };
}

/** A host as a browser sends it: a name or an address, and a port. Anything else names no origin. */
const HOST = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

export function kitOrigins(config: PublicOriginConfig, request: RequestLike): readonly string[] {
  if (config.publicOriginGiven) return config.publicOrigins;
  if (config.trustProxy) {
    const forwarded = forwardedOrigin(request);
    if (forwarded) return [forwarded];
  }
  if (config.publicOrigins.length > 0) return config.publicOrigins;
  return loopbackOrigins(request);
}

/** The origin the shop's proxy says the request came to (the first of each header: the proxy nearest the payer). */
function forwardedOrigin(request: RequestLike): string | undefined {
  const first = (name: string) => request.headers.get(name)?.split(',')[0]?.trim() || undefined;
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return undefined;
  }
  const protocol = first('x-forwarded-proto')?.toLowerCase() ?? url.protocol.slice(0, -1);
  const host = first('x-forwarded-host') ?? first('host') ?? url.host;
  if ((protocol !== 'https' && protocol !== 'http') || !HOST.test(host)) return undefined;
  try {
    return new URL(`${protocol}://${host}`).origin;
  } catch {
    return undefined;
  }
}

/** A loopback socket's origins: the address it listens at, and localhost at its port. None elsewhere. */
function loopbackOrigins(request: RequestLike): readonly string[] {
  const local = rememberedLocalOrigin(request);
  if (!local) return [];
  const socket = new URL(local);
  if (!isLoopbackHost(socket.hostname)) return [];
  const localhost = `http://localhost${socket.port ? `:${socket.port}` : ''}`;
  return socket.origin === localhost ? [localhost] : [localhost, socket.origin];
}
