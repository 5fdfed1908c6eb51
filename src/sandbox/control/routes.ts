/**
 * The sandbox's own routes, for people and tests on this machine: the control API under /sandbox/v1/ (what
 * each call does is api.ts's), its event stream, the dashboard's files, and `GET /`, which describes
 * the sandbox to a program and shows the dashboard to a browser.
 */
import { parseJson, SERVICE_PATHS } from '../../core/index.js';
import { decodeUtf8 } from '../../core/signing.js';
import { handleControl } from './api.js';
import { controlEvents } from './events.js';
import { DASHBOARD_CSS, dashboardHtml, dashboardPolicy, dashboardScript } from '../dashboard/page.js';
import { SANDBOX_PATHS } from '../paths.js';
import type { Route } from '../http/router.js';
import type { SandboxWorld } from '../world/world.js';

/** The dashboard's files by path: content type and text. `GET /` serves the page to browsers too. */
const DASHBOARD_FILES: Record<string, () => readonly [string, string]> = {
  [SANDBOX_PATHS.dashboard]: () => ['text/html; charset=utf-8', dashboardHtml('../')],
  [SANDBOX_PATHS.dashboardScript]: () => ['text/javascript; charset=utf-8', dashboardScript()],
  [SANDBOX_PATHS.dashboardStyles]: () => ['text/css; charset=utf-8', DASHBOARD_CSS],
};

export interface ControlRoutes {
  route: Route;
  /** Ends every open event stream. */
  close(): void;
}

export function controlRoutes(world: SandboxWorld, options: { publicUrl: string; heartbeatMs: number }): ControlRoutes {
  const events = controlEvents(world, options.heartbeatMs);
  const merchants = [...world.merchants.values()];

  const route: Route = async (exchange) => {
    const { request, response, method, url, path, raw, cors, started, log, finish } = exchange;
    if (url.pathname === SANDBOX_PATHS.events) {
      if (method !== 'GET') finish(405, { message: 'use GET' }, { ...cors, Allow: 'GET' });
      else events.serve(exchange);
      return true;
    }
    if (url.pathname.startsWith('/sandbox/v1/')) {
      const text = decodeUtf8(raw);
      const parsed = text === undefined ? undefined : text.trim() === '' ? { ok: true as const, value: undefined } : parseJson(text);
      if (!parsed?.ok) {
        finish(400, { message: 'the body is not JSON' }, cors);
        return true;
      }
      const answer = await handleControl(world, method, url, parsed.value);
      if (answer) {
        finish(answer.status, answer.body, cors);
        return true;
      }
    }
    const page = DASHBOARD_FILES[url.pathname];
    const wantsPage = url.pathname === '/' && /\btext\/html\b/.test(String(request.headers.accept ?? ''));
    if ((page || wantsPage) && (method === 'GET' || method === 'HEAD')) {
      const [type, body] = page ? page() : (['text/html; charset=utf-8', dashboardHtml('')] as const);
      log(`${method} ${path} 200 ${Date.now() - started}ms`);
      response.writeHead(200, {
        'Content-Type': type,
        'Content-Security-Policy': dashboardPolicy(options.publicUrl),
        'Cache-Control': 'no-store',
        'X-Content-Type-Options': 'nosniff',
        'Referrer-Policy': 'no-referrer',
      });
      response.end(method === 'HEAD' ? undefined : body);
      return true;
    }
    if (url.pathname === '/' && method === 'GET') {
      finish(200, {
        name: 'svc-sandbox',
        merchants: merchants.map((merchant) => ({ merchantId: merchant.merchantId, methods: merchant.methods, available: merchant.available })),
        service: SERVICE_PATHS,
        control: SANDBOX_PATHS,
      });
      return true;
    }
    return false;
  };

  return { route, close: () => events.close() };
}
