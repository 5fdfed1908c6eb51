/**
 * `createSandbox`: the sandbox started in-process, its parts wired by job. The world (world/) keeps what the
 * service knows; the routes answer for it: the service's API (service/, with its fault injection), the 3-D
 * Secure check (three-ds/), and the control API, event stream and dashboard (control/routes.ts), each asked in
 * turn by the router (http/router.ts) behind one node:http server (http/node-server.ts).
 */
import type { SandboxClock } from './world/clock.js';
import type { ResolvedMerchant, SandboxMerchant } from './config.js';
import { controlRoutes } from './control/routes.js';
import { HeldCalls } from './service/fault-injection.js';
import { DevelopmentGuard } from './http/guard.js';
import { startHttpServer } from './http/node-server.js';
import { DataFileWriter, readDataFile } from './world/persistence.js';
import { createRouter } from './http/router.js';
import type { ScenariosInput } from './scenarios/scenario-file.js';
import { serviceRoutes } from './service/routes.js';
import { threeDsRoutes } from './three-ds/routes.js';
import { createWorld, restoreWorld, worldData } from './world/world.js';

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
  /** The merchant's name, as the service knows the shop: its 3-D Secure page and messages show it. */
  merchantName?: string;
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


export async function createSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const world = createWorld(options);
  const saved = options.dataFile ? await readDataFile(options.dataFile) : undefined;
  if (saved) restoreWorld(world, saved);
  const log = options.log ?? (() => undefined);
  const writer = options.dataFile
    ? new DataFileWriter(options.dataFile, () => worldData(world), (error) => log(`data file ${options.dataFile} not written: ${error.message}`))
    : undefined;
  if (writer) {
    await writer.start();
    world.events.watch(() => writer.changed());
  }

  // The routes need the address browsers reach the sandbox at, which is known once it listens; no request
  // is taken before the router below is made (listening resolves before any connection is served).
  let router: ReturnType<typeof createRouter> | undefined;
  const server = await startHttpServer({ host: options.host ?? '127.0.0.1', port: options.port ?? 0, log }, (request, response) => router!(request, response));
  const publicUrl = options.publicUrl?.replace(/\/+$/, '') || server.url;
  const guard = new DevelopmentGuard();
  const held = new HeldCalls();
  const control = controlRoutes(world, { publicUrl, heartbeatMs: options.heartbeatMs ?? 15_000 });
  router = createRouter({
    clock: world.clock,
    guard,
    publicUrl,
    maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024,
    log,
    routes: [
      serviceRoutes(world, { publicUrl, held }),
      threeDsRoutes({ state: world, book: world.book, merchantsById: world.merchants, guard, publicUrl }),
      control.route,
    ],
  });

  const ticker = setInterval(() => world.tick(), options.tickMs ?? 200);
  ticker.unref();

  return {
    url: server.url,
    merchants: [...world.merchants.values()],
    clock: world.clock,
    idle: () => world.dispatcher.idle(),
    save: async () => {
      writer?.changed();
      await writer?.flush();
    },
    async close() {
      clearInterval(ticker);
      held.clear();
      control.close();
      await server.close();
      await Promise.race([world.dispatcher.idle(), new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
      await writer?.flush();
    },
  };
}
