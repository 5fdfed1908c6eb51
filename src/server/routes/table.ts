/**
 * Every route of the kit in one table, derived from the merchant paths of src/core (`MERCHANT_PATHS`): the methods it
 * serves (which make its `Allow`), what its body is, and whether the isolated frame calls it from its opaque origin
 * (its CORS). The Web handler (web.ts) and the Node fast path (element-calls.ts) both read it; a `json` or `signed` body is read within the handler's `maxBodyBytes` (413 past it).
 */
import { ISOLATED_CALLS, KIT_PAGE_PATHS, matchPath, MERCHANT_PATHS, type KitOperation, type MerchantOperation } from '../../core/index.js';
import { problem } from '../http/http.js';

export type RouteMethod = 'GET' | 'HEAD' | 'POST';

export interface RouteSpec {
  readonly operation: KitOperation;
  readonly path: string;
  /** The methods it serves; any other is 405 with them as `Allow`. */
  readonly methods: readonly RouteMethod[];
  /**
   * `json`: an element's call, a JSON body within the size limit (415 otherwise); `signed`: the service's callback, its
   * bytes as they came (what was signed); `beacon`: the element's timings, read by its route; `none`: no body.
   */
  readonly body: 'json' | 'signed' | 'beacon' | 'none';
  /** Called by the isolated frame from its opaque origin: answers its preflight, and is readable there. */
  readonly frame: boolean;
}

type Traits = Omit<RouteSpec, 'operation' | 'path' | 'frame'>;

const ELEMENT_CALL: Traits = { methods: ['POST'], body: 'json' };
const PAGE: Traits = { methods: ['GET', 'HEAD'], body: 'none' };

/** The element's calls: a JSON body in, an envelope out. */
export const ELEMENT_OPERATIONS = ['create', 'otp', 'pin', 'resendOtp', 'status', 'ticket'] as const satisfies readonly MerchantOperation[];
export type ElementOperation = (typeof ELEMENT_OPERATIONS)[number];

/** What each merchant path is, as the kit serves it. */
const TRAITS: Readonly<Record<KitOperation, Traits>> = {
  ...(Object.fromEntries(ELEMENT_OPERATIONS.map((operation) => [operation, ELEMENT_CALL])) as Record<ElementOperation, Traits>),
  events: { methods: ['GET'], body: 'none' },
  callbacks: { methods: ['POST'], body: 'signed' },
  returnPage: PAGE,
  health: PAGE,
  timings: { methods: ['POST'], body: 'beacon' },
  pay: PAGE,
  payQr: PAGE,
  handoff: { methods: ['GET', 'POST'], body: 'none' },
};

const KIT_PATHS: Readonly<Record<KitOperation, string>> = { ...MERCHANT_PATHS, ...KIT_PAGE_PATHS };

export const ROUTES: Readonly<Record<KitOperation, RouteSpec>> = Object.freeze(
  Object.fromEntries(
    (Object.keys(KIT_PATHS) as KitOperation[]).map((operation) => [
      operation,
      Object.freeze({
        operation,
        path: KIT_PATHS[operation],
        ...TRAITS[operation],
        frame: (ISOLATED_CALLS as readonly KitOperation[]).includes(operation),
      }),
    ]),
  ) as Record<KitOperation, RouteSpec>,
);

/** A route's `Allow`. */
export const allowOf = (route: RouteSpec): string => route.methods.join(', ');

/** The answer to a method a route does not serve: 405 with its `Allow`. */
export function methodRefused(route: RouteSpec): Response {
  const { methods } = route;
  return problem(405, `only ${methods.join(' and ')} ${methods.length > 1 ? 'are' : 'is'} served here`, {}, { Allow: allowOf(route) });
}

/** The route a path under the base path names, or undefined (a trailing slash names the same route). */
export function routeFor(pathname: string, basePath: string): RouteSpec | undefined {
  if (basePath && pathname !== basePath && !pathname.startsWith(`${basePath}/`)) return undefined;
  const path = pathname.slice(basePath.length).replace(/\/+$/, '');
  return PATHS.get(path) ?? TEMPLATES.find((route) => matchPath(route.path, path));
}

/** The parameters of a templated route's path (`/pay/{link}`), or undefined when the path is not the route's. */
export function routeParams(route: RouteSpec, pathname: string, basePath: string): Record<string, string> | undefined {
  return matchPath(route.path, pathname.slice(basePath.length).replace(/\/+$/, ''));
}

const PATHS = new Map(Object.values(ROUTES).filter((route) => !route.path.includes('{')).map((route) => [route.path, route]));
/** Routes with a parameter in their path, matched after the exact ones. */
const TEMPLATES = Object.values(ROUTES).filter((route) => route.path.includes('{'));
