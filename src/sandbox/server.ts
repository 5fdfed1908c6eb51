/**
 * The sandbox's HTTP server: the service's API at the specification's paths (every business answer HTTP 200
 * with the envelope), the 3-D Secure page, and the control API. `createSandbox` starts it in-process.
 */
import type { ServerResponse } from 'node:http';
import { parseJson, SERVICE_PATHS } from '../core/index.js';
import { printable } from '../server/http.js';
import { decodeUtf8 } from '../server/signature.js';
import type { SandboxClock } from './clock.js';
import type { ResolvedMerchant, SandboxMerchant } from './config.js';
import { handleControl, snapshot } from './control-api.js';
import { DASHBOARD_CSS, dashboardHtml, dashboardPolicy, dashboardScript } from './dashboard/page.js';
import { formatServerSentEvent, SANDBOX_EVENT_TYPES, type SandboxEventType } from './events.js';
import { HeldCalls } from './fault-injection.js';
import { DataFileWriter, readDataFile } from './persistence.js';
import type { ScenariosInput } from './scenario-file.js';
import { serviceRoutes } from './service-routes.js';
import { DevelopmentGuard } from './guard.js';
import { startHttpServer } from './http-server.js';
import { SANDBOX_PATHS } from './paths.js';
import { createRouter, type Route } from './router.js';
import { threeDsRoutes } from './three-ds-routes.js';
import { createWorld, restoreWorld, worldData } from './world.js';

export interface SandboxOptions {
  /** Default 0: any free port (the CLI's default is 4010). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Several merchants; otherwise one, from the fields below or the default sandbox merchant. */
  merchants?: readonly SandboxMerchant[];
  merchantId?: string;
  privateKey?: string;
  publicKey?: string;
  webhookUrl?: string;
  /** The address browsers reach the sandbox at, when it is behind a proxy; default its own URL. */
  publicUrl?: string;
  /** How often due expiries, refunds and callback retries are applied, in real milliseconds. Default 200. */
  tickMs?: number;
  /** Milliseconds to wait for a merchant to answer a callback. Default 5 000. */
  callbackTimeoutMs?: number;
  /** Largest request body read. Default 1 MiB; larger bodies get HTTP 413. */
  maxBodyBytes?: number;
  /** One line per request (method, path, result code, time); never a body or a key. Default: silent. */
  log?: (line: string) => void;
  /** Send callbacks to hosts other than this machine. Default false (see README, "A safe development tool"). */
  allowRemoteCallbacks?: boolean;
  /**
   * Test values, VAT rates and merchants, in the format of a scenarios file (README, "Scenarios as data"):
   * each key changes the defaults. Its `merchants` serve when `merchants` is not given.
   */
  scenarios?: ScenariosInput;
  /**
   * A file that keeps the sandbox's state across restarts: read at start (a damaged file is an error), written
   * shortly after every change and at close, atomically.
   */
  dataFile?: string;
  /** Milliseconds between comments on an idle event stream, so that proxies keep it open. Default 15 000. */
  heartbeatMs?: number;
}

export interface Sandbox {
  /** The base URL, e.g. http://127.0.0.1:4010. */
  url: string;
  merchants: readonly ResolvedMerchant[];
  clock: SandboxClock;
  /** Resolves when no callback is being sent. */
  idle(): Promise<void>;
  /** Writes the data file now, when there is one. */
  save(): Promise<void>;
  close(): Promise<void>;
}


/** Bytes an event stream may fall behind by before its reader is let go. */
const MAX_STREAM_BACKLOG = 8 * 1024 * 1024;

/** The dashboard's files by path: content type and text. `GET /` serves the page to browsers too. */
const DASHBOARD_FILES: Record<string, () => readonly [string, string]> = {
  [SANDBOX_PATHS.dashboard]: () => ['text/html; charset=utf-8', dashboardHtml('../')],
  [SANDBOX_PATHS.dashboardScript]: () => ['text/javascript; charset=utf-8', dashboardScript()],
  [SANDBOX_PATHS.dashboardStyles]: () => ['text/css; charset=utf-8', DASHBOARD_CSS],
};

export async function createSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const world = createWorld(options);
  const { book, dispatcher, clock, events } = world;
  const merchantsById = world.merchants;
  const merchants = [...merchantsById.values()];
  const saved = options.dataFile ? await readDataFile(options.dataFile) : undefined;
  if (saved) restoreWorld(world, saved);
  const log = options.log ?? (() => undefined);
  const held = new HeldCalls();
  let publicUrl = options.publicUrl?.replace(/\/+$/, '') ?? '';
  const guard = new DevelopmentGuard();

  const writer = options.dataFile
    ? new DataFileWriter(options.dataFile, () => worldData(world), (error) => log(`data file ${options.dataFile} not written: ${error.message}`))
    : undefined;
  if (writer) {
    await writer.start();
    events.watch(() => writer.changed());
  }

  const controlRoute: Route = async ({ request, response, method, url, path, raw, cors, started, finish }) => {
    if (url.pathname === SANDBOX_PATHS.events) {
      if (method !== 'GET') finish(405, { message: 'use GET' }, { ...cors, Allow: 'GET' });
      else streamEvents(url, response, cors, finish);
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
        'Content-Security-Policy': dashboardPolicy(publicUrl),
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

  /** The event stream: a snapshot, then every event as it is published, and a comment now and then to keep it open. */
  function streamEvents(url: URL, response: ServerResponse, cors: Record<string, string>, finish: (status: number, body: unknown, headers?: Record<string, string>) => void): void {
    const asked = url.searchParams.get('types');
    const types = asked ? asked.split(',').map((type) => type.trim()) : undefined;
    const unknown = types?.filter((type) => !Object.hasOwn(SANDBOX_EVENT_TYPES, type));
    if (unknown && unknown.length > 0) {
      return finish(400, { message: `types: ${unknown.join(', ')} is not an event type; they are ${Object.keys(SANDBOX_EVENT_TYPES).join(', ')}`, errors: [{ field: 'types', rule: 'enum', message: 'unknown event type' }] }, cors);
    }
    world.tick();
    log(`GET ${printable(url.pathname)} 200 stream`);
    response.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no',
      'X-Content-Type-Options': 'nosniff',
      ...cors,
    });
    response.write('retry: 2000\n\n');
    response.write(formatServerSentEvent({ id: 0, type: 'snapshot', at: clock.now(), data: snapshot(world) }));
    const wanted = (type: SandboxEventType) => !types || type === 'reset' || types.includes(type);
    const unsubscribe = events.subscribe((event) => {
      if (!wanted(event.type)) return;
      // A reader that stopped reading is let go: it reconnects and gets a new snapshot.
      if (response.writableLength > MAX_STREAM_BACKLOG) response.destroy();
      else response.write(formatServerSentEvent(event));
    });
    const heartbeat = setInterval(() => response.write(': still here\n\n'), options.heartbeatMs ?? 15_000);
    heartbeat.unref();
    streams.add(response);
    response.on('close', () => {
      unsubscribe();
      clearInterval(heartbeat);
      streams.delete(response);
    });
  }

  const streams = new Set<ServerResponse>();
  const server = await startHttpServer({ host: options.host ?? '127.0.0.1', port: options.port ?? 0, log }, (request, response) => router(request, response));
  const url = server.url;
  if (!publicUrl) publicUrl = url;
  const router = createRouter({
    clock,
    guard,
    publicUrl,
    maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024,
    log,
    routes: [serviceRoutes(world, { publicUrl, held }), threeDsRoutes({ state: world, book, merchantsById, guard, publicUrl }), controlRoute],
  });

  const ticker = setInterval(() => world.tick(), options.tickMs ?? 200);
  ticker.unref();

  return {
    url,
    merchants,
    clock,
    idle: () => dispatcher.idle(),
    save: async () => {
      writer?.changed();
      await writer?.flush();
    },
    async close() {
      clearInterval(ticker);
      held.clear();
      for (const stream of streams) stream.end();
      await server.close();
      await Promise.race([dispatcher.idle(), new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
      await writer?.flush();
    },
  };
}
